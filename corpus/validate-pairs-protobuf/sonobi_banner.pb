
some-request-idL
some-impression-id¬úz¬úz¬Ø:/7780971/apex_3pdm_integration)
sonobi.com:http://tester.go.sonobi.com@ôZUSD