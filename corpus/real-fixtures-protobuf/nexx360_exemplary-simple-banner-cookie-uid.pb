
test-request-idE
C
test-slot-idtest-imp-idš™™™™™¹?2test-adRcreative-123€¬ˆú