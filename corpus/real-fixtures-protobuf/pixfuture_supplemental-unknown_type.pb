
test-response-id&
$
bid1imp1®Gáz®ó?2<div>Ad</div>"USD