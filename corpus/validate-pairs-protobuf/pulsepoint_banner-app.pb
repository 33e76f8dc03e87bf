

request-id
banner-1À2:1001"Bcom.publisher.app