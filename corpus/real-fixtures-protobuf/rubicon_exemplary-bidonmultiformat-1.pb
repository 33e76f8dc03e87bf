
test-request-id`
U
test_bid_id-2test-imp-idмлллллЛ?2some-test-adJtest_cidR	test_cridjtest_dealidrubicon"USD