
some-request-id)
some-impression-id1À2:placementId
:test.com@è