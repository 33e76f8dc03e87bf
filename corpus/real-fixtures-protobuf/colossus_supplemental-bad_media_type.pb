
test-request-id²
¥
test_bid_idtest-imp-idÿ••&¥ Ñ?2Õ<iframe id="adm-banner-16" width="300" height="250" frameborder="0" marginheight="0" marginwidth="0" style="{overflow:hidden}" src="http://sa-lb.deliverimp.com/pserver&k=882b2510ed6d6c94fa69c99aa522a708"></iframe>Jtest_cidR	test_cridjtest_dealid€¬ˆúcolossus"USD