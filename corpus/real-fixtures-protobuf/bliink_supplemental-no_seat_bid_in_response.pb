
awesome-resp-id"EUR