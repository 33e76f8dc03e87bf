
test-request-idS
L
12345impId10111011101110111011{®Gáz„?2<html/>:domain.test€¬ˆúˆ9585778926625248726496"USD