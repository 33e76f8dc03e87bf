
 bid-resp-id-675ad335fcb3286441b5ö
ë
0bid-item-id-097ae4ab-80c2-4ff9-8696-9ef0cc7f92f1imp-id-1-27b9e54b56de702{®Gáz¤?2‰<a href='https://advertiser.com/click' target='_blank'><img src='https://advertiser.com/banner.jpg' width='320' height='50' alt='Ad'></a>:start.ioseat-1"USD