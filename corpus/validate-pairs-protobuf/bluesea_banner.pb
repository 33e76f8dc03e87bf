
$b655d86c-fdf6-4e68-a1e9-abc223f84a65
1¬ú`"test-appBcom.test.app8@°	