
bid-resp-idÅ
º
bid-item-idimp-id¸…ëQ¸ž?2Œ<?xml version='1.0' encoding='UTF-8'?><VAST version='3.0'><Ad id='123'><InLine><AdSystem>Prebid</AdSystem><AdTitle>Sample Video Ad</AdTitle><Creatives><Creative><Linear><Duration>00:00:30</Duration><MediaFiles><MediaFile type='video/mp4' width='640' height='360' delivery='progressive'>https://advertiser.com/video.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>:example.comseat-1"USD