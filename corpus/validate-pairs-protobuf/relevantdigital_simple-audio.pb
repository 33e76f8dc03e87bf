
test-request-id
test-audio-idz
	audio/mp4@î