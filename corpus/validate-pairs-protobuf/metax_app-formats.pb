
test-request-idM
test-imp-idØZzØZ
	video/mp40€8Àªj
{json string 1}1.2"B
com.prebid