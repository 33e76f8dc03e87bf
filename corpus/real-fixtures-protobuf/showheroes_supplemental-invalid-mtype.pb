ž
›
test-bid-idtest-imp-idš™™™™™¹?2]<VAST version='3.0'><Ad id='123'><InLine><AdSystem>ShowHeroes</AdSystem></InLine></Ad></VAST>Rcreative-123€¬ˆúˆ"EUR