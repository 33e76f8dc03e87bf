
test-request-idD
B
test-slot-id
imp-id-123š™™™™™¹?2test-adRcreative-123€¬ˆú"EUR