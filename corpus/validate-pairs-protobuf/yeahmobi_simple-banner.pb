
test-request-id
test-imp-idz¬2