
12345
1¬úA×£p=
×Ó?JUSD`$
bannertest.com:https://test.com