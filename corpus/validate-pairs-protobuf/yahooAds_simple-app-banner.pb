
test-request-id!
test-imp-idØZzØZ:pos2"
dcn1