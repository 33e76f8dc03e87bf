
test-request-idë
test-imp-id¬ú
	video/mp4 0€8àªj¸
µ{"native":{"ver":"1.2","assets":[{"id":1,"required":1,"title":{"len":90}},{"id":2,"required":1,"img":{"type":3,"w":1200,"h":627}},{"id":3,"required":0,"data":{"type":1,"len":90}}]}}!example.com:http://example.com