
test-response-id0
.
bid1imp1®Gáz®ó?2<div>Banner Ad</div>ˆ