
testRequestIdSingle‚
u
uniqueIdtestImpressionIdÍÌÌÌÌÌ@"advertiserUniqueId2iframe-contentJcampaignUniqueIdRcreativeUniqueId€¬ˆú	coinzilla"USD