
test-request-idü
ñ
test_bid_idtest-imp-idÿ••&¥ Ñ?2¡<iframe id="adm-banner-16" width="300" height="250" frameborder="0" marginheight="0" marginwidth="0" style="{overflow:hidden}" src="http://example.com"></iframe>Jtest_cidR	test_cridjtest_dealid€¬ˆúkobler"USD