y
w
test-bid-idtest-imp-id333333Ó?2:<img src='https://creative-url.showheroes.com/banner.jpg'>Rcreative-789€Àˆ2ˆ"EUR