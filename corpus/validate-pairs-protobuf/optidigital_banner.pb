

request-id
imp-idz¬ú