
test-request-id
test-imp-id-bannerz¬ú"
appID