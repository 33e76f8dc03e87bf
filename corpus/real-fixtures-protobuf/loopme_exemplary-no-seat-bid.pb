
test-request-idloopme