
test-request-id
test-imp-idz¬ú
site-id:
criteo.com