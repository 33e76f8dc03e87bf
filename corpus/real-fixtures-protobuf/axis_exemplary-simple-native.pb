
test-request-idY
Q
test_bid_idtest-imp-idÿ••&¥ Ñ?2{}Jtest_cidR	test_cridjtest_dealid€¬ˆúseat"USD