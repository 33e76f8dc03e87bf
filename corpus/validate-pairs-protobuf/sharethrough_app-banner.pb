

web-banner
banner-imp-idz¬ú:pkey"Bcom.fake.app@¸