
test-request-id/
test-imp-idz¬ú
	video/mp40¬8úª:https://good.site/url