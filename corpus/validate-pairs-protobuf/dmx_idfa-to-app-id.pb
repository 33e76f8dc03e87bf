
test-request-id/
test-imp-id¬úz¬úz¬Ø:123454`"o
 ed6207cefff74c14878963566683c070Skout - iOS Match BuyB	302324249‚(https://itunes.apple.com/app/id302324249