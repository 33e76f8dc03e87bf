
test-audio-request-id;
test-audio-imp-id:test-audio-placementz

audio/mpeg(example.com:https://example.com/audioZUSD