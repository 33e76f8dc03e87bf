
test-request-id)
test-imp-id¬úz¬úz¬Ø:16"
1Bcom.wls.testwlsapplication