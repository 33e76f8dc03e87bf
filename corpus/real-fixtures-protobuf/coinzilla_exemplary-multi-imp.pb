
testRequestIdSingleœ
„
uniqueIdFirsttestImpressionIdFirstÍÌÌÌÌÌ@"advertiserUniqueIdFirst2iframe-contentJcampaignUniqueIdRcreativeUniqueId€¬ˆú
‡
uniqueIdSecondtestImpressionIdSecondÍÌÌÌÌÌ@"advertiserUniqueIdSecond2iframe-contentJcampaignUniqueIdRcreativeUniqueId€¬ˆú	coinzilla"USD