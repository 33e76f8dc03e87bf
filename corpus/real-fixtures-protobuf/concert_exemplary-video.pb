
test-response-id~
|
test-bid-idtest-imp-id®Gáz®ó?2:<VAST version="3.0"><Ad><Wrapper>...</Wrapper></Ad></VAST>Rtest-creative-id€€ˆàˆ