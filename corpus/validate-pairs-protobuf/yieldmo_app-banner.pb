
test-request-id
test-imp-idz¬ú"
fake-app-id