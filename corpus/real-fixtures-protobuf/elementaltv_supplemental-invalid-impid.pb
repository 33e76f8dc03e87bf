
req1-imp1-resp15
3
req1-imp1-bid1invalid¸…ëQ¸¾?2<b>a banner</b>"USD