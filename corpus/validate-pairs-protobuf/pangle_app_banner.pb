
test-request-id
test-imp-idz¬ú"B
com.prebid