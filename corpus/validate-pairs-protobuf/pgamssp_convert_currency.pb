
test-request-id3
test-imp-idz¬úz¬Ø:testAš™™™™™©?JUSD"
1Bcom.wls.testwlsapplication