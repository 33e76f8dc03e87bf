
req1-imp1-resp17
5
req1-imp1-bid1imp1¸…ëQ¸Î?2<VAST />zIAB1zIAB2"USD