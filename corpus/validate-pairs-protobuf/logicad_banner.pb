
testid%
	testimpidz¬úzÀ2:testtid