
test-request-id
test-imp-idz
	audio/mp4"	
"'
1B"com.rediads.testrediadsapplication