
test-request-id†
}
test_bid_idtest-imp-idÿ••&¥ Ñ?2some-test-ad:madvertise.comJtest_cidR	test_cridjtest_dealid€Àˆ2²https://burl.comadman"EUR