
test-request-id1
test-imp-id-1z¬ú
	video/mp4Ð:8287821
test-imp-id-2z¬ú
	video/mp4Ð:828783