
test-response-id-22
0
bid2imp2¸…ëQ¸@2<div>Banner Ad 2</div>ˆ"USD