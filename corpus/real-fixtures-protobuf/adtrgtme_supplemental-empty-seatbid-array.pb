
test-resp-id"USD