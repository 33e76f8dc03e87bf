
awesome-resp-idк
c
 a3ae1b4e2fc24a4fb45540082e98e161test-banner-idмлллллЛ?2awesome-markup:awesome.comR20─ю┬2
\
 a3ae1b4e2fc24a4fb45540082e98e161test-native-idмлллллЛ?2awesome-markup:awesome.comR20bliinkm
b
 a3ae1b4e2fc24a4fb45540082e98e161test-video-idмлллллЛ?2awesome-markup:awesome.comR20─ю┬2bliink2"EUR