N
L
test-slot-idtest-imp-idš™™™™™¹?2<h1>test ad</h1>Rcreative-123€¬ˆú