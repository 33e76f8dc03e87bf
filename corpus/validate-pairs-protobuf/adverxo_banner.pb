

request_id
imp_id¬Ø)www.example.com:http://www.example.com@ôZUSD