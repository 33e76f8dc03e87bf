
id€
x
id1333333ó?*http://test.com/nurl2<span>Test2</span>:test.comJcidRcrid1zIAB1€¬ˆú²http://test.com/burlˆseat"USD