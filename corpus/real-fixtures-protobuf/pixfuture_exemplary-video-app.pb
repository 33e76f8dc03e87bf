
test-response-id)
'
bid1imp1®Gáz®ó?2<vast></vast>ˆ"USD