
test-request-id
test-imp-idz
	audio/mp4"	
"B
com.prebid