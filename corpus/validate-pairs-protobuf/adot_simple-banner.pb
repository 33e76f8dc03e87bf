
test-request-banner-id$
test-imp-banner-idÀúzÀú