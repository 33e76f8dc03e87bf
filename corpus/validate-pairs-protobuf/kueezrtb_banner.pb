
some-request-id
some-impression-idğ:
prebid.org@ˆ'