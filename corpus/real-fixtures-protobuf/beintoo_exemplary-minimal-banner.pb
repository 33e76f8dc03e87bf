
some_test_auction¡
—
uuidsome_test_ad_idáA³ëÞŠ@"943955002Y<div id="123456789_ad"><script>!function(){console.log"Hello, world.";}();</script></div>R94395500€¬ˆú12356"USD