
test-request-id"USD