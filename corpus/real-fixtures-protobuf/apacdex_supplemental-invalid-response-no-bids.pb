
some_test_auction"USD