
test-request-id2
test-imp-id:opa:banner¬úz¬ú:s17890`"	good.site:https://good.site/url8@È