
1"
 
native-request-idtest-imp-id