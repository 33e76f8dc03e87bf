
testRequestIdMultiŒ


uniqueId#1testImpressionIdÍÌÌÌÌÌ@"advertiserUniqueId#12iframe-content#1JcampaignUniqueId#1RcreativeUniqueId#1€¬ˆú
~

uniqueId#2testImpressionIdáz®Gáþ?"advertiserUniqueId#22iframe-content#2JcampaignUniqueId#2RcreativeUniqueId#2€ØˆZ	coinzilla"USD