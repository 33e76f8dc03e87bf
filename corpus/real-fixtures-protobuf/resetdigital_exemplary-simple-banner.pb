
test-request-idn
^
test-bid-idtest-imp-id…ëQ¸	@2<div>test ad</div>:example.comRtest-creative-id€¬ˆúresetdigital"USD