
test-request-idmetax