
test-request-id
test-imp-idz¬úz¬¬?
test-imp-video-id*
	video/mp4 0ü8Œ@zšªÐ"T
fake-app-idMinuteMedia Fake Test AppB12345‚"https://example.com/fake-store-url