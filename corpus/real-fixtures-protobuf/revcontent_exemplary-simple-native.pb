
test-request-idl
j
$8400d766-58b3-47d4-80d7-6658b337d403test-imp-id333333ó?2{\"ver\":\"1.1\",\"assets\":[]}Rcrid_testid