
test-request-idg
_
test_bid_idtest-imp-idÿ••&¥ Ñ?2<span>Test</span>Jtest_cidR	test_cridjtest_dealid€Ôˆ<seat"USD