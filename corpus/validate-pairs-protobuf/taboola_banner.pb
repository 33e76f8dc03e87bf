

request-id1
impression-idz¬úz¬Øz Ø:tag-IdG
publisher-idpublisher-idhttp://domain.com:http://page-domain.com