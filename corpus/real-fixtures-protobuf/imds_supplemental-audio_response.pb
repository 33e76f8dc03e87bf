
1!

audio-request-idtest-imp-id