
test-request-id$
test-imp-idz¬úzÀd:test"1
	123456789Some Appsome-app.comBcom.app.someZUSD