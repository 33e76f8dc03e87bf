
test-request-id.
,
test-bid-idtest-imp-id1333333ó?€„ˆú"USD