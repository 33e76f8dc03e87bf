
tidbid01