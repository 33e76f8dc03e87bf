
test-request-id
test-imp-idz¬2
test-imp-id2z¬ú