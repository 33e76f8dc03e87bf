
$1C86242D-9535-47D6-9576-7B1FE87F282CK
$1C86242D-9535-47D6-9576-7B1FE87F282CzÀ2zÀú:	130563103A×†Šqþ&T?Y:Whttp://localhost:3000/server.html?pbjs_debug=true&endpoint=http://localhost:3000/bidderršuspConsentString