
Œ
test-slot-idtest-imp-idš™™™™™¹?2P<iframe id='789abc' name='789abc' src='http://creative-url.criteo.com'></iframe>Rcreative-123€¬ˆú"USD