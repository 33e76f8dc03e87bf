
	123456789¹
°
1testimpÍÌÌÌÌÌô?2·{"native":{"ver":"1.2","assets":[{"id":1,"title":{"text":"Native Ad Title"}},{"id":2,"img":{"url":"https://adserverexample.com/image.jpg","w":1200,"h":627}},{"id":3,"data":{"value":"Sponsored"}}],"link":{"url":"https://clickexample.com"},"imptrackers":["https://trackingexample.com/pixel?wp=${AUCTION_PRICE}"]}}:example.comJ999999R9999999zIAB3-1²5https://trackingexample.com/pixel?wp=${AUCTION_PRICE}ˆNone