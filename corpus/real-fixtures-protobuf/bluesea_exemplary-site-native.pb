
$b655d86c-fdf6-4e68-a1e9-abc223f84a65_
R
test-bid-id1{®Gáz„?2test-native-adm:adv.comRtest-site-native-crid€¬ˆú	test-seat"USD