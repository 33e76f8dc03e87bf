
some-request-id(
0_0
	video/mp4x –0€8à:	my-adcode
:test.com@è