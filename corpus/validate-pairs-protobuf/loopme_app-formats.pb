
test-request-idH
test-imp-idzØZ
	video/mp40€8Àªj
{json string 1}1.2"B
com.prebid