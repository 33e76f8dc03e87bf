
test-request-idd
b
test_bid_idtest-imp-idÿ••&¥ Ñ?2<VAST version="3.0"></VAST>Jtest_cidR	test_cridjtest_dealid"USD