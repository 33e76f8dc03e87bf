
test-request-idP
E
test_bid_idtest-imp-idÿ••&¥ Ñ?Jtest_cidR	test_cridjtest_dealidrubicon"USD