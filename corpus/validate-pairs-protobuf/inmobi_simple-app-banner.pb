
req-id
imp-idÀ2"Bcom.example.app