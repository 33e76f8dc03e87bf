
some-request-id$
some-impression-idÀ2:ogTAGID"9
	123456789Awesome Appawesomeapp.comBcom.app.awesome@è