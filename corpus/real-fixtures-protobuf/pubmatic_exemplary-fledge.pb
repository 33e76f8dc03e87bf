
test-request-idi
]
$9d8e77c2-ee0f-4781-af59-5359493b11aftest-imp-idš™™™™™ñ?2some-test-adRcrid_10€ØˆZˆpubmatic"USD