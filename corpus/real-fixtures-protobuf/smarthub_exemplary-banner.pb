
id|
t
ididš™™™™™¹?*http://test.com/nurl2<span>Test</span>:test.comJcidRcridzIAB1€¬ˆú²http://test.com/burlseatid"USD