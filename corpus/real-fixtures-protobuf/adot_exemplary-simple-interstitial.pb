
test-request-idß
û
test-request-inter-idtest-imp-inter-id=D£;àùÚ?* nurl.link/win?p=${AUCTION_PRICE}2?some-test-ad imp_${AUCTION_PRICE} creativeview_${AUCTION_PRICE}Ä¿à‡adot"USD