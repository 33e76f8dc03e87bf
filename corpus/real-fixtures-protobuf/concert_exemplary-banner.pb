
test-response-idÉ
Æ
test-bid-idtest-imp-id®Gáz®ó?2ƒ<div style='width:1030px; height:590px; background-color:#000; color:#fff;'><h1>Banner Ad</h1><p>This is a mock banner ad</p></div>Rtest-creative-id€†ˆÎˆ