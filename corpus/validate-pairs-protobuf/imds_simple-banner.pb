
test-request-id
test-imp-idz¬ú:demo1