
test-request-empty-seatbid"USD