
awesome-resp-id"USD