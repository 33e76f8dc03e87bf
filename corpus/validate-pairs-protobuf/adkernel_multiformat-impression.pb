
0000000000001
multi-adunitb__mfz¬ú&
multi-adunitv__mf
	video/mp40€8à/
multi-adunitn__mfj
{native: "request"}1.2"
app_001Bcom.rovio.angrybirds