
test-req
test-req¬ú
test