
test-request-id%
test-imp-idz¬úA333333ó?JUSD