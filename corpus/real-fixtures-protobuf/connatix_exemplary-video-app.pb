
some-response-id{
o
 b3ae1b4e2fc24a4fb45540082e98e161some-impression-idмллллл@2some-test-vast-ad:awesome.comR112233──
┬пconnatix"USD