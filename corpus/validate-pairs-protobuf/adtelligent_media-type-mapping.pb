
test-request-id-
test-imp-id
video/x-flv
	video/mp40„8ú