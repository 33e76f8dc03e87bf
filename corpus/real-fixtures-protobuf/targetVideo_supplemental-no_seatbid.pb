
test-request-id"EUR