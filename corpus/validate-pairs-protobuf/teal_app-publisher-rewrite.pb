
test-request-banner
test-imp-bannerz¬ú")
demo-appDemo AppBcom.example.demoapp