

request-id
impression-idÀ2:tidtest.com:test.com/page@è