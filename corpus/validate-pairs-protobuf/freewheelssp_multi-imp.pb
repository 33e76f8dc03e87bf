
freewheelssp-test
imp-1
	video/mp40¬8ú
imp-2
	video/mp40¬8ú:
prebid.org