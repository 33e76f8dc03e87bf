
test-request-idJ
B
test-request-audio-idtest-imp-audio-id=D£;ˆò?2some-audio-adadot"USD