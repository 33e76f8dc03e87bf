
test-request-idD
test-imp-id:$473e443c-43d0-423d-a8d7-a302637a01d8z
	audio/mp4"	
"B
com.prebid