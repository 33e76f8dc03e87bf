Ÿ
œ
test-slot-idtest-video-imp-idš™™™™™¹?2M<iframe id='789abc' name='789abc' src='http://creative-url.oms.com'></iframe>Rcreative-123zIAB20€€ˆà€
ˆ"USD