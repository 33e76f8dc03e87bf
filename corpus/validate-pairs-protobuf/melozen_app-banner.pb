

web-banner
banner-imp-idz¬ú"Bcom.fake.app@¸