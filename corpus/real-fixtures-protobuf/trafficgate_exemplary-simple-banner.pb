
test-request-id{
y
test_bid_idtest-imp-idÿ••&¥ Ñ?2*<iframe width="300" height="250"></iframe>Jtest_cidR	test_cridjtest_dealid€¬ˆú"USD