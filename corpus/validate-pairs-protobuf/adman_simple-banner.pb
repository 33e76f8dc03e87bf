
test-request-id#
test-imp-idz¬úz¬Ø:16"
1Bcom.wls.testwlsapplication