
test-request-id,
test-imp-idz¬úz¬Ø:test-imp-id:www.publisher.com:%http://www.publisher.com/awesome/site@È