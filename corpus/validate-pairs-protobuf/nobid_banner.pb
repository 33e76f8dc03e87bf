
test-request-id
test-imp-idzØZ