
req1-imp1-resp12
0
req1-imp1-bid1imp1¸…ëQ¸¾?2<b>a banner</b>"USD