
test-request-id
test-imp-idz¬ú`"	good.site:https://good.site/url8@ÐZUSD