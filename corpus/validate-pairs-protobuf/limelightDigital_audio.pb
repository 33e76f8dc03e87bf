
test-request-id-test-audio-id
test-audio-idz
	audio/mp4