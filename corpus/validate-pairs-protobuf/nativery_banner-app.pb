
test-request-id
test-imp-idz¬ú"1
1Amesome Appawesomeapp.comBcom.app.awesome