
test-request-id.
test-imp-id-1z¬ú
	video/mp4Ð:123.
test-imp-id-2z¬ú
	video/mp4Ð:123