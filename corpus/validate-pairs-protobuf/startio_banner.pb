
!auction-req-id-8cd85aed-25a6-4db0Q
imp-id-1-27b9e54b56de7025Àà :	image/jpg:	image/gif:	text/htmlRzÀà!

4204204209:https://example.com