
testauction
1z¬ú:mytagA{®Gáz„?`
108060www.mypage.com