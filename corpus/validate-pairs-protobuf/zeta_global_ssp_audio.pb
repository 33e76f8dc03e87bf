
some-request-id@
some-impression-idz*
	audio/aac
	audio/mp4

audio/mpeg"	
)www.example.com:http://www.example.com@ô