
test-request-id
imp-idzÀ2:imp-id"
1Bcom.example