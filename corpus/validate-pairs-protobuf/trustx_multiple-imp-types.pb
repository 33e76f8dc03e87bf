
test-request
test-imp
	video/mp40€8¸

test-imp-2¬ú/test-domain.com:http://test-domain.com/index