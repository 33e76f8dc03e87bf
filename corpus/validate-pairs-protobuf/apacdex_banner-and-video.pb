
test-request-id
test-banner-imp-idz¬ú+
test-video-imp-id
	video/mp40€8àª
123