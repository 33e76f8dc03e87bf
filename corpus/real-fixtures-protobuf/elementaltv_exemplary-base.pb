

req1-unit10
.
req1-unit1-bid1imp1¸…ëQ¸¾?2<b>An ad</b>"USD