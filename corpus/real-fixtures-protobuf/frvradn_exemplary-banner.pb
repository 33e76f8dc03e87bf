
test-request-id~
q
$d4916d88-c0f4-4340-87c0-bc9054696d3atest-banner-idš™™™™™á?"1231232
a creative:advertiser.comR9999€¬ˆØ	test-seat