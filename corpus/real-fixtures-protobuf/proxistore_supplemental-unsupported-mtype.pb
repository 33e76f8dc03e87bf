
test-request-idb
T
test-bid-idtest-imp-id®Gáz®ó?2<div>Ad creative</div>Rcreative-123€¬ˆúˆc
proxistore"EUR