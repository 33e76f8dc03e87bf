
test-request-id,
1zÀ2
	video/mp40À8àª:123456”
2z¬2:234567j~
w{"native":{"assets":[{"id":0,"required":1,"img":{"url":"..."}},{"id":1,"required":1,"title":{"text":"custom title"}}]}}1.2