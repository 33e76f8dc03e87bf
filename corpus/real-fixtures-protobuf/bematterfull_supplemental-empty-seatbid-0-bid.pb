
idseatid"USD