
test-request-bannerV
T
	app-bid-1test-imp-bannerÍÌÌÌÌÌ@2<div>app-banner</div>Rapp-creative-9€¬ˆú"USD