
some-request-id”
€
1some-impression-idX9´Èv¾ó?2><script type="text/javascript" src="http://some-url"></script>:some-adomainJ1234R2345€ˆzeta_global_ssp
some-bidid"USD