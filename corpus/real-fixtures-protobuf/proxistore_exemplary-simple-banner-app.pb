
test-request-idy
k
test-bid-idtest-imp-id333333ë?2<div>App banner creative</div>:advertiser.comRcreative-456€Àˆ2ˆ
proxistore"EUR