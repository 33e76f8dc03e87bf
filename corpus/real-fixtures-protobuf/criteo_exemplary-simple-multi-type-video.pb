O
M
test-slot-idtest-imp-idš™™™™™¹?2some-test-ad-vastRcreative-123€¬ˆú"USD