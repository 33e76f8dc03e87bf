
test-request-id"
test-imp-idz
	audio/mp3":http://www.example.com