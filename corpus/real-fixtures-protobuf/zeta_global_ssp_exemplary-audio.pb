
some-request-id_
L
1some-impression-idX9´Èv¾ó?2<VAST>TAG</VAST>:some-adomainJ1234R2345zeta_global_ssp
some-bidid"USD