
test-request-id
test-imp-idÀ2zÀ2(
test-site-id:https://www.example.com/