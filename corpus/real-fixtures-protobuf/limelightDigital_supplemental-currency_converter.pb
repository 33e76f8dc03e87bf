
test-request-id-test-banner-id„
w
$5665e2bf-5a8d-a16c-a3d6-584a39392c87test-banner-id333333@"92-2872test-banner:advertiserdomain.comR287€¬ˆú	test-seat