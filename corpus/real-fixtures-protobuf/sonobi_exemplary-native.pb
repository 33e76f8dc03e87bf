
some-request-idS
I
1some-impression-idëQ¸…ë@2test-markup:
sonobi.comJhouseRsandboxsonobisandbox_642305097"USD