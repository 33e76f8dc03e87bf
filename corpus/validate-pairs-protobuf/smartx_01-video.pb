
test-request-id-video
test-imp-id
	video/mp4