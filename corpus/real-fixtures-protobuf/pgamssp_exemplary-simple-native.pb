
test-request-id¨
œ
test_bid_idtest-imp-idÿ••&¥ Ñ?2É<iframe id="adm-banner-16" width="300" height="250" frameborder="0" marginheight="0" marginwidth="0" style="{overflow:hidden}" src="http://test.com/pserver&k=882b2510ed6d6c94fa69c99aa522a708"></iframe>Jtest_cidR	test_cridjtest_dealid€¬ˆúˆpgamssp"USD