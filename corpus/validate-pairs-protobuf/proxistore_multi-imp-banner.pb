
test-request-id
imp-1z¬ú
imp-2zØZ'example.com:https://example.com/page