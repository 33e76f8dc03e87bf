
some-request-id(
some-imp-idÀ2zÀ2:some-tag-id"9
	123456789Awesome Appawesomeapp.comBcom.app.awesome@ô