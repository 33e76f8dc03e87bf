Œ
‰
test-slot-idtest-imp-idš™™™™™¹?2M<iframe id='789abc' name='789abc' src='http://creative-url.oms.com'></iframe>Rcreative-123€¬ˆú"USD