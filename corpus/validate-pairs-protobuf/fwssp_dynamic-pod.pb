

fwssp-test)
imp-1 
	video/mp4 0¬8ú@ÿÿÿÿÿÿÿÿÿ:
prebid.org