
test-request-id
test-imp-id€À0`"
1Bcom.wls.testwlsapplicationrš
us_privacy