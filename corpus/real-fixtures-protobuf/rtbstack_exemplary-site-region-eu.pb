
test-request-euZ
N
bid-eu-1imp-eu-bannerš™™™™™ñ?2<div>EU Banner 300x250</div>R	crid-eu-1ˆrtbstack"EUR