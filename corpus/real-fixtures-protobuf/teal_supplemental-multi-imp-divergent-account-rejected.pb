
test-request-banner;
9
bid-1
test-imp-1š™™™™™ñ?2<div>imp1</div>Rc1€¬ˆú"USD