
testRequestIdMulti#
testImpressionIdz¬úzØZ#:!https://publisher-website.com/web