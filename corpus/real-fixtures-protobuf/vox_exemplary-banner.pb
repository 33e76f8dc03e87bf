
$cf4b0abb-7ccc-4057-9914-c85f467260c6Å

$e6a143f3-5176-4607-b09e-0e67e358b0b6$8a7510f9-0ca1-44c4-a8c6-1ce639b5eef9oÉ¿ !	@2<html><h1>Hi, there</h1></html>Ä2à2à"USD