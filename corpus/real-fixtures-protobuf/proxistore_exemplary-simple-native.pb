
test-request-idи
╨
test-bid-idtest-imp-idмлллллЭ?2m{"native":{"ver":"1.1","link":{"url":"https://example.com"},"assets":[{"id":1,"title":{"text":"Ad Title"}}]}}:advertiser.comRcreative-native-123┬
proxistore"EUR