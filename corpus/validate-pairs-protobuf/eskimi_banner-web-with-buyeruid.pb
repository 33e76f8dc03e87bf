
test-request-id
test-imp-idz¬ú`#
271display.eskimi-creatives.com