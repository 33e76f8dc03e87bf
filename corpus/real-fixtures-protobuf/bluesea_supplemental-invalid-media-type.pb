
$b655d86c-fdf6-4e68-a1e9-abc223f84a65L
?
test-bid-id1{®Gáz„?2test-adm:adv.comR	test-crid€¬ˆú	test-seat"USD