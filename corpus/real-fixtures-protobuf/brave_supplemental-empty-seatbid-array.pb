
resp-id"USD