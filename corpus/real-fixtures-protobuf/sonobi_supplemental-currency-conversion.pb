
some-request-idê
ß
1some-impression-idëQ¸…ë@2š<script type="text/javascript" src="http://iad-2.go.sonobi.com/sbid.js?demand&aid=sandbox_642305097&aic=${AUCTION_PRICE}&pid=71d9d3d8af&h=6.137"></script>:
sonobi.comJhouseRsandbox€ˆsonobisandbox_642305097"USD