
test-audio-request-id–
…
test-audio-bid-idtest-audio-imp-idÍÌÌÌÌÌ@2,<VAST version="3.0"><Ad id="a1"></Ad></VAST>:example.comRtest-audio-creative-idˆresetdigital"USD