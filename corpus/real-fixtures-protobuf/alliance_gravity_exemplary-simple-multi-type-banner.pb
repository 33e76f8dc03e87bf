M
K
test-slot-id
imp-id-123š™™™™™¹?2<h1>test ad</h1>Rcreative-123€¬ˆú"EUR