
test-request-idW
G
test-bid-idtest-imp-idÍÌÌÌÌÌü?2<VAST></VAST>Rtest-creative-idˆresetdigital"USD