
test-request-id-test-native-id
€
$5665e2bf-5a8d-a16c-a3d6-584a39392c87test-native-idNÑ‘\şCÂ?"92-2872test-native-response:advertiserdomain.comR287€¬ˆú	test-seat