
test-request-id"
test-imp-idz
	audio/mp3
"
site-id:
criteo.com