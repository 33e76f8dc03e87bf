
req-id$
some-impression-idÀ2:ogTAGID"7
3998392Awesome Appawesomeapp.comBcom.app.awesome@è