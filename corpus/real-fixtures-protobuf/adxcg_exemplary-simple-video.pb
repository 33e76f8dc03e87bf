
test-request-idU
L
test-request-video-idtest-imp-video-idÂõ(\ò?2some-test-ad€¬ˆúˆadxcg"USD