
$CFD24FB1-916F-467D-8825-34892B315DB7E
$29D2F33E-F865-40DA-9320-16EF77935254Rz¬ú:test_placement`"

test_mediaBnet.ada.test8ZJPY