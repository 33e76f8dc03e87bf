
test-req-id*
test-imp-id
	video/mp40€8à:test-asi@ô