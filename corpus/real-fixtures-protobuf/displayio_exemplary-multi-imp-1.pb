
test-request-multi-idL
C
testid2test-imp-id-2š™™™™™é?2some-test-adRcrid_11€¬ˆ–ˆseat2"USD