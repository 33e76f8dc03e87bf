
$cf4b0abb-7ccc-4057-9914-c85f467260c61
$8a7510f9-0ca1-44c4-a8c6-1ce639b5eef9ddJUSD": http://some.site/url/page?id=338ZUSD