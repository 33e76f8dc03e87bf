

request-id
impression-idÀ2:tid""
12345678Test AppBcom.app.test@è