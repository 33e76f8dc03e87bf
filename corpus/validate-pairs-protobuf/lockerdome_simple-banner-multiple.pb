
test-request-id
test-imp-idz¬ú
test-imp-id-2z¬ú