
test-request-id
test-imp-idz¬úz¬Ø"
1Bcom.wls.testwlsapplication