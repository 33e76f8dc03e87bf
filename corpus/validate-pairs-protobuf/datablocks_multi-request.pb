
some-request-id
some-impression-idz¬ú
some-impression-id2z¬Ø:
prebid.org8@ô