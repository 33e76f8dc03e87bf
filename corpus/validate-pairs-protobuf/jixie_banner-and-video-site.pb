
some_test_auction)
some_test_ad_id_1¬dz¬dz¬Ø!
some_test_ad_id_2¬2z¬2E
some_test_ad_id_30
	video/mp4
application/javascript0€8àªJwww.publisher.com:5http://www.publisher.com/today/site?param1=a&param2=b