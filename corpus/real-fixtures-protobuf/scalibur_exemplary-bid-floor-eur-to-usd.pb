
test-request-idQ
O
test-bid-idtest-imp-id333333ó?2<html>...</html>Rtest-creative-id€¬ˆú"USD