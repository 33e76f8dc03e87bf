
test-request-idH
test-imp-id7Àà2:
image/jpeg:	image/jpg:	image/gif:	image/png0