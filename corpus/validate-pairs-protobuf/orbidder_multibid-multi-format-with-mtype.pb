
test-request-id£
multi-format-test-imp-id-1z¬úJEURjv
o"assets":[{"id":0,"required":1,"title":{"len":140},{"id":1,"img":{"h":250,"hmin":0,"type":3,"w":300,"wmin":0}}]1.2£
multi-format-test-imp-id-2z¬úJEURjv
o"assets":[{"id":0,"required":1,"title":{"len":140},{"id":1,"img":{"h":250,"hmin":0,"type":3,"w":300,"wmin":0}}]1.2:https://test.orbidder.de