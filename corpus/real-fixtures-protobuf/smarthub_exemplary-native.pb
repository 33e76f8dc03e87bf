
ide
]
ididš™™™™™¹?*http://test.com/nurl2{}:test.comJcidRcridzIAB1²http://test.com/burlseatid"USD