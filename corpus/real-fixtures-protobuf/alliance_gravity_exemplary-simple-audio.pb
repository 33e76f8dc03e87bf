F
D
test-slot-id
imp-id-123š™™™™™¹?2some-test-ad-vastRcreative-123"EUR