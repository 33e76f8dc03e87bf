
 bid-resp-id-675ad335fcb3286441b5ù
î
0bid-item-id-097ae4ab-80c2-4ff9-8696-9ef0cc7f92f1imp-id-1-27b9e54b56de702¸…ëQ¸ž?2Œ<?xml version='1.0' encoding='UTF-8'?><VAST version='3.0'><Ad id='123'><InLine><AdSystem>Prebid</AdSystem><AdTitle>Sample Video Ad</AdTitle><Creatives><Creative><Linear><Duration>00:00:30</Duration><MediaFiles><MediaFile type='video/mp4' width='640' height='360' delivery='progressive'>https://advertiser.com/video.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>:start.ioseat-1"USD