
test-request-id
test-banner-imp-idz¬ú
123