
test-request-id
test-imp-idz¬2#
exampleexample.com:example.com