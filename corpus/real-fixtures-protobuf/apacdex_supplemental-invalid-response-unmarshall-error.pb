
some_test_auction

uuidsome_test_ad€ØˆZ"USD