
test-response-id-12
0
bid1imp1®Gáz®ó?2<div>Banner Ad 1</div>ˆ"USD