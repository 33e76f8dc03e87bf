
0000000000001
adunit-1¬ú"
app_001Bcom.rovio.angrybirds