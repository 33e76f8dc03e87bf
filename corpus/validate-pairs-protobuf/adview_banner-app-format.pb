
some-request-id.
some-impression-idÀ2zÀ2:
posid00001"9
	123456789Awesome Appawesomeapp.comBcom.app.awesome@èZUSD