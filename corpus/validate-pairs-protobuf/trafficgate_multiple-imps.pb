
test-request-id%
test-imp-id
	video/mp40€8Àª&
test-imp-id2
	video/mp40€8¸ª"
1Bcom.wls.testwlsapplication