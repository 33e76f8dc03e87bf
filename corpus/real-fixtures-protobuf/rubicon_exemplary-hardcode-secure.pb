
test-request-id^
S
test_bid_idtest-imp-idÿ••&¥ Ñ?2some-test-adJtest_cidR	test_cridjtest_dealidrubicon"USD