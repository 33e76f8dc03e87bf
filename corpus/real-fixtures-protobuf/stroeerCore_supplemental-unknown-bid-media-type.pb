
test-request-id