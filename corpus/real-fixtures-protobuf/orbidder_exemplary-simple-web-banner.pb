
web-test-request-id…
v
$8ee514f1-b2b8-4abb-89fd-084437d1e800web-test-imp-id333333ã?"111101262web-some-test-adRweb-test-crid€¬ˆúˆweb-seat-id"EUR