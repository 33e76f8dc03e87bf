
test-request-id
test-imp-idz¬ú:tagid"#
	123456789
prebid.comB
com.prebid@è