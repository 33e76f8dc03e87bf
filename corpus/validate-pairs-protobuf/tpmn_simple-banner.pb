
test-request-id.
test-imp-idz¬úz¬Ø:00000001JUSD"
1Bcom.wls.testwlsapplication