
test-request-id
test-imp-id¬úz¬ú`"	good.site:https://good.site/url8@È