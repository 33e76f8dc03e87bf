
test-request-id
1zÀ2
2z¬2