
0000000000001
multi-adunit¬ú"
app_001Bcom.rovio.angrybirds