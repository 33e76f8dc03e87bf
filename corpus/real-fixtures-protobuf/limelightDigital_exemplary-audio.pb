
test-request-id-test-audio-id„
w
$5dce6055-a93c-1fd0-8c29-14afc3e510fdtest-audio-id46<½Â?"92-289*test-win2
test-audio:advertiserdomain.comR289	test-seat