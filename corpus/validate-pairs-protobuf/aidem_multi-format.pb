
test-request-id$
1zÀ2
	video/mp40À8àª