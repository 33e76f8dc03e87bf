
	123456789'
testimpzÀ2zØZA\Âõ(\ï?JUSDG:Ehttp://lh.example.com/prebid_server_kitchen_sink.html?pbjs_debug=trueZUSD