
X4lwEgAAyXAKlqvGCwa9kgG
1&¬2 :
image/jpeg:	image/gifz¢„:
2612792908Aš™™™™™©?JUSD`stg.betterbutter.in8@”
ZUSD