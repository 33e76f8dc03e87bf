
awesome-resp-idq
g
 a3ae1b4e2fc24a4fb45540082e98e161some-impression-idмлллллЛ?2awesome-markup:awesome.comR20─ю┬2bliink"EUR