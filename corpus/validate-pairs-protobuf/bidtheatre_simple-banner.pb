
test-request-id
test-imp-idzÔğzÔ¬:
prebid.org