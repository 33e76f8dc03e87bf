
test-request-id‹

test_bid_idtest-imp-idÿ••&¥ Ñ?2some-test-ad:madvertise.comJtest_cidR	test_cridZjtest_dealid€Àˆà²https://burl.comadman"EUR