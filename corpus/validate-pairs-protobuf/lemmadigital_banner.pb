
test-request-id&
test-imp-id€¸z€¸Aš™™™™™¹?
siteID