
test-request-idy
w
test_bid_idtest-imp-idÿ••&¥ Ñ?2)<iframe width="468" height="60"></iframe>Jtest_cidR	test_cridjtest_dealid€Ôˆ<"USD