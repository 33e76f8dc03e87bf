
test-request-idŠ
‚
7706636740145184841test-imp-idffffffþ?"296811102ads:dmx.districtm.ioBhttps://dmx.districtm.io/b/v2J958R29681110€¬ˆú9585778926625248726496"USD