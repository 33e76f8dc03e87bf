
test-request-banneru
9
bid-1
test-imp-1š™™™™™ñ?2<div>imp1</div>Rc1€¬ˆú
8
bid-2
test-imp-2š™™™™™é?2<div>imp2</div>Rc2€ØˆZ"USD