
test-request-id%
test-imp-idz¬úz¬Ø:test"
1Bcom.wls.testwlsapplication