
some-request-id"
some-impression-idÀ2:TAGID
:test.com