
test-request-id(
test-imp-id1z¬úz¬Ø:123456'
test-imp-id2zØZz Ø:654321:www.publisher.com:%http://www.publisher.com/awesome/site