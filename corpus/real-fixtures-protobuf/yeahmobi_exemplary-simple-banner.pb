
test-request-idZ
S
$8ee514f1-b2b8-4abb-89fd-084437d1e800test-imp-id333333ó?2some-adsRcrid_testidttx"USD