
abc.
imp123¬úz¬ú:N4zTDq3PPEHBIODv7cXK:
prebid.org