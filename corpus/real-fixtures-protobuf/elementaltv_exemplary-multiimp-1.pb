
req1-imp2-resp27
5
req1-imp2-bid1imp2¸…ëQ¸Î?2<VAST />zIAB1zIAB2"USD