
test-request-id-
+
test-bid-idtest-imp-id333333ó?€„ˆú"USD