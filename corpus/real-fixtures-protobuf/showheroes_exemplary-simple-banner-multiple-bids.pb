œ
Ž
test-bid-id-1test-imp-id-1š™™™™™¹?2L<iframe src='https://creative-url.showheroes.com/medium-rectangle'></iframe>Rcreative-123€¬ˆúˆ
ˆ
test-bid-id-2test-imp-id-2333333Ã?2G<iframe src='https://creative-url.showheroes.com/leaderboard'></iframe>Rcreative-456€ØˆZˆ"EUR