
$b655d86c-fdf6-4e68-a1e9-abc223f84a65R
E
test-bid-id1{®Gáz„?2	test-vast:adv.comRtest-site-crid€Àˆà	test-seat"USD