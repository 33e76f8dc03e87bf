4
2
testid	testimpid{®Gáz„?"2068416J8048R24080