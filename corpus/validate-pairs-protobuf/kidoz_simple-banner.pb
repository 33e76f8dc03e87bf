
test-request-id
test-impression-id-1zÀ2