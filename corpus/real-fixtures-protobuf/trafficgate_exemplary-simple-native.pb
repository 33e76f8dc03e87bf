
test-request-idX
V
test_bid_idtest-imp-idW!å'Õ>ï?2awesomeJtest_cidR	test_cridjtest_dealid€¬ˆú"USD