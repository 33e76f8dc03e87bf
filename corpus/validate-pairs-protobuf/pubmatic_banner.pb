
test-request-id2
test-imp-id¬úz¬ú:
AdTag_Div1A¸…ëQ¸¾?
siteID