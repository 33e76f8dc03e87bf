
test-request-id
test-imp-idz¬úz¬Ø!
test-imp-id-2z¬úz¬Ø