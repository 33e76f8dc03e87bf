
resp-id