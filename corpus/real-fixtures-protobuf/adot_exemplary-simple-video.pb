
test-request-id§

test-request-video-idtest-imp-video-id=D£;ˆò?* nurl.link/win?p=${AUCTION_PRICE}2?some-test-ad imp_${AUCTION_PRICE} creativeview_${AUCTION_PRICE}€¬ˆúadot"USD