
test-request-idU
S
$8400d766-58b3-47d4-80d7-6658b337d403test-imp-id333333ó?2some adsRcrid_testid