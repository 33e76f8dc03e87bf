
test-request-id
test-imp-idz¬úz¬Ø+
test-imp-video-id
	video/mp40€8Àª