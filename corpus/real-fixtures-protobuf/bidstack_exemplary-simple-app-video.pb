
bid-request-idU
M
bid_id-1imp-id-1ÿ••&¥ Ñ?2<VAST version="3.0"></VAST>JcidRcridjdealidseat"USD