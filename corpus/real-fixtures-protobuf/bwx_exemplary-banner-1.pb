
id
w
id2333333@*http://test.com/nurl2<span>Test3</span>:test.comJcidRcridzIAB1€¬ˆú²http://test.com/burlˆseat"USD