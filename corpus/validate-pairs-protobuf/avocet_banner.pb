
test-request-id
test-imp-idz¬úz¬Ø