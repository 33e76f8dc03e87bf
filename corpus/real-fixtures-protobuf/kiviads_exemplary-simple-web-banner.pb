
test-request-id¯
£
test_bid_idtest-imp-idÿ••&¥ Ñ?2Ô<iframe id="adm-banner-1" width="468" height="60" frameborder="0" marginheight="0" marginwidth="0" style="{overflow:hidden}" src="http://endpoint1.kiviads.com/pserver&k=bc2d316f39931a07d9a8dd249bf85fc0"></iframe>Jtest_cidR	test_cridjtest_dealid€Ôˆ<kiviads"USD