
test-request-id}
s
test-imp-idtest-imp-id«ÝŸ ëHÛ?"111101262some-test-ad:www.lazada.comR	test-cridZzIAB22zIAB8-5€¬ˆúˆbigoad"USD