
test-request-id<
:
test-imp-idtest-imp-id333333ó?2some adsRcrid_testid