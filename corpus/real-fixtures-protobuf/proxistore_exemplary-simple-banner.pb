
test-request-idr
d
test-bid-idtest-imp-id®Gáz®ó?2<div>Ad creative</div>:advertiser.comRcreative-123€¬ˆúˆ
proxistore"EUR