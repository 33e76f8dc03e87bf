
some-response-idu
i
 a3ae1b4e2fc24a4fb45540082e98e161some-impression-id333333Ó?2some-test-ad:awesome.comR112233€Àˆ2connatix"USD