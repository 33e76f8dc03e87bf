
test-request-idh
`
test_bid_idtest-imp-idÿ••&¥ Ñ?2<span>Test</span>Jtest_cidR	test_cridjtest_dealid€¬ˆúseat"USD