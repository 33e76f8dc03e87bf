
test-request-id;
$b6321d41-3840-4cb3-baad-b6fc5b0c8553¬úz¬ú:125