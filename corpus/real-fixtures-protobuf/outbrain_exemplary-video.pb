
$5095a742-1c27-402b-ab6f-66b1bd53383bi
]
test-request-idtest-imp-idÿwDe@2	<vast ad>:example.comJtest-cidR	test-cridzIAB13-4acc-1876$43ccadf2-8b2e-11eb-b294-de4c49e99ff6"USD