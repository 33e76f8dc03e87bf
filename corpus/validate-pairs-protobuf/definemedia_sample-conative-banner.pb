
$ceb63773-4280-45f2-a684-94cf6a3b8fcf&
div-gpt-ad-1460505748561-0z¬úQlocalhost:8080:?http://localhost:8080/prebidServer_example.html?pbjs_debug=true@è