
test-request-idC
imp-app-audio-short:app-audio-shortz

audio/mpeg
	audio/mp4A
imp-app-audio-long:app-audio-longz

audio/mpeg
	audio/mp4<"Bcom.prebid.app