
test-request-id|
o
1test-imp-idš™™™™™ñ?"17586*some-test-nurl2some-test-ad:	wooga.comBsome-test-iurlJ17586R17586€¬ˆú	marsmedia5778926625248726496"USD