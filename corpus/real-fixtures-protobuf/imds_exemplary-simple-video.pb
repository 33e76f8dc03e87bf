
1L
D
video-request-idi3ױר:פו‹@:psacentral.orgJ	mock-cridRmock-cidimds