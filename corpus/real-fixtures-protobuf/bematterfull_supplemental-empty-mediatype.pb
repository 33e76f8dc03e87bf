
idò
t
id1š™™™™™¹?*http://test.com/nurl2<span>Test1</span>:test.comJcidRcridzIAB1€¬ˆú²http://test.com/burl
t
id2333333ó?*http://test.com/nurl2<span>Test2</span>:test.comJcidRcridzIAB1€¬ˆú²http://test.com/burlseatid"USD