

req1-unit1
imp1dÈ