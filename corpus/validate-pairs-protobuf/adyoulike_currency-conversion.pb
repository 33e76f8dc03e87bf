
test-request-id.
banner-imp-idz¬ú:12345Aš™™™™™©?JUSDZUSD