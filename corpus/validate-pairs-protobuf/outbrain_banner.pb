
test-request-id
test-imp-idz¬ú:http://example.com