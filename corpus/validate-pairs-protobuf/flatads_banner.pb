
test-request-id-banner
test-imp-id-bannerzØZ