
test-request-id„
v
$729c0d99-3b45-4225-9ad5-64aef2b46df3test-imp-id333333ã?2<html>test ad markup</html>RLD12134555163033624€¬ˆú
lockerdome