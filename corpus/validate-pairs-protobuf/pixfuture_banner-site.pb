
test-request-id
imp1¬ú
:test.com