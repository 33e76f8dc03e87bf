
test-request-id
test-imp-idÀ2zÀ2"Bcom.showheroes.app