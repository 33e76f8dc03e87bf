
test-request-id
test-imp-id¬ú(example.com:http://example.com/page-1bIAB25bIAB7-39bIAB8-18