
test-request-banner\
Z
bid-no-placementtest-imp-bannerffffffî?2<div>no-placement</div>Rcreative-np€¬ˆú"USD