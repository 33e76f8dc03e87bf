
test-request-id
test-imp-id¬ú"B54321