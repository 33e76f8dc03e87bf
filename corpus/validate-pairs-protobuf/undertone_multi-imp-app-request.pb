
test-request-id-
test-imp-banner-idz¬úz¬¬:12345G
test-imp-video-id*
	video/mp4 0ü8Œ@zšªÐ:123456"*www.example.com‚http://www.example.com