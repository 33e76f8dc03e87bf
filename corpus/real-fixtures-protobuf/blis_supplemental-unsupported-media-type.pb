
test-reqç
Ñ
1testimp333333Û?2å<a href="https://clickexample.com/" target="_blank"><img src="https://adserverexample.com/example.gif" width="320" height="50" alt="" /></a>:example.comJ999999R9999999Ä¿à2≤5https://trackingexample.com/pixel?wp=${AUCTION_PRICE}àNone