
test-request-id
test-imp-idØZzØZ
test-site-id