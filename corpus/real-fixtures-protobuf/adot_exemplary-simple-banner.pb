
test-request-banner-id®
ü
test-request-banner-idtest-imp-banner-id=D£;àùÚ?* nurl.link/win?p=${AUCTION_PRICE}2?some-test-ad imp_${AUCTION_PRICE} creativeview_${AUCTION_PRICE}Ä¿à2adot"USD