
testid3
	testimpidÀúzÀúzÀ¬:dummyplacement