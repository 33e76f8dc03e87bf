
test-request-id
test-imp-id¬úz¬ú:https://good.site/url