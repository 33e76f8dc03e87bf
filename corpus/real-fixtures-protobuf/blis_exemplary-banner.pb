
	123456789¾
µ
1testimp333333ó?2Œ<a href="https://clickexample.com/" target="_blank"><img src="https://adserverexample.com/example.gif" width="320" height="50" alt="" /></a>:example.comB'https://adserverexample.com/example.gifJ999999R9999999zIAB3-1€Àˆ2²5https://trackingexample.com/pixel?wp=${AUCTION_PRICE}ˆNone