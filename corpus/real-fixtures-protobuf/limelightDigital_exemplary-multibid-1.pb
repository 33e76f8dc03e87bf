
test-request-id-test-video-idŒ

$5dce6055-a93c-1fd0-8c29-14afc3e510fdtest-video-id§yÇ):’Ã?"92-288*test-win2
test-video:advertiserdomain.comR288€¬ˆú	test-seat