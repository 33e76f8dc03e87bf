
test-request-id!

imp-id-123z
	audio/mp3
"
site-id:
criteo.com