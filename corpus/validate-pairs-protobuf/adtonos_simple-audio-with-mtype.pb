
some-request-id+
some-impression-idAмллллл@z

audio/mpeg)www.example.com:http://www.example.com@Х