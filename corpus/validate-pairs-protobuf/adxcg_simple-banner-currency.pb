
test-request-id
test-imp-idz¬ú:https://good.site/urlZEUR