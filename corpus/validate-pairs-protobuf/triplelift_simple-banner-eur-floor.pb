
test-request-id)
test-imp-idz¬ú:aaAš™™™™™ñ?JUSDZUSD