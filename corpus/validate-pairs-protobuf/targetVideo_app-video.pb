
test-request-id-video&
test-imp-id-video
	video/mp40€8è"
appIDZEUR