

request_idbid_id"USD