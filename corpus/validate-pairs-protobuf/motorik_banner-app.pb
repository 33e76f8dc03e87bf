
some-request-id
1À2:ogTAGID"9
	123456789Awesome Appawesomeapp.comBcom.app.awesome@è