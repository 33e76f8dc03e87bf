
test-request-id>
test-imp-id:testAffffffæ?JUSDz

audio/mpeg
	audio/mp3)www.example.com:http://www.example.com