
testRequestIdSingle
testImpressionId1z¬ú
testImpressionId2zÀd#:!https://publisher-website.com/web