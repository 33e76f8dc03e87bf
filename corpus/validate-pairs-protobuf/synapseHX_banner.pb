
auction-req-id?
imp-id5Àà :	image/jpg:	image/gif:	text/htmlRzÀà
site-id:https://example.com