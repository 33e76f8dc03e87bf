
1T
L
test-request-idtest-imp-id…ëQ¸…@:psacentral.orgJ	mock-cridRmock-cidimds