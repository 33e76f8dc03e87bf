
bid-resp-idÅ
º
bid-item-idimp-id{®Gáz¤?2‰<a href='https://advertiser.com/click' target='_blank'><img src='https://advertiser.com/banner.jpg' width='320' height='50' alt='Ad'></a>:example.comˆseat-1"USD