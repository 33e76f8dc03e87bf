
test-request-same-route¾
:

bid-same-1
imp-same-1š™™™™™ñ?2<div>1</div>Rcrid-1ˆ
:

bid-same-2
imp-same-2333333ó?2<div>2</div>Rcrid-2ˆ
:

bid-same-3
imp-same-3ÍÌÌÌÌÌô?2<div>3</div>Rcrid-3ˆrtbstack"USD