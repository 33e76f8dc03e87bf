
test-request-multi-id
test-imp-id-1z¬ú
test-imp-id-2zÀà:somepage.comrš