
test-request-id
test-imp-idzØZ:329"
1Bcom.foo.bar