–
“
test-bid-idtest-imp-idš™™™™™¹?2U<iframe id='789abc' name='789abc' src='https://creative-url.showheroes.com'></iframe>Rcreative-123€¬ˆúˆ"EUR