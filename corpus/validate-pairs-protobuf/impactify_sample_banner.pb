
test-request-id%
test-imp-idz¬úAš™™™™™©?JUSD8ZUSD