
test-request-id 
test-imp-idzÀ2:app-pl-1"Example AppBcom.example.app