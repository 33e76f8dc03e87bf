
test-request-id,
test-imp-id
	video/mp40€8Àª0:123"
123B
com.prebid