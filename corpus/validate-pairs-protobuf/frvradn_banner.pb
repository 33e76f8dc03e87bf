
test-request-id
test-banner-idz¬Ø