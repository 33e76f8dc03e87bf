
test-request-idU
L
12345impId10111011101110111011{®Gáz„?2<html/>:domain.test€¬ˆúˆseat15778926625248726496"USD