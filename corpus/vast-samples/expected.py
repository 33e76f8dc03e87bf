#!/usr/bin/env python3
# Writes EXPECTED.tsv: what each sample holds, read with Python's ElementTree (an oracle independent of
# bidscan-markup). Columns: file, version (- = none), ads, first ad is a wrapper, first Linear's Duration in seconds
# (- = none), MediaFile elements in the first Ad, Impression and Error elements in the document, first Ad's
# VASTAdTagURI (- = none). Run from this directory: python3 expected.py > EXPECTED.tsv
import sys, os, re
import xml.etree.ElementTree as ET
def local(t): return t.split('}')[-1]
def dur(t):
    m = re.fullmatch(r'(\d{1,6}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?', t.strip())
    if not m: return None
    h,mi,s,f = m.groups()
    if int(mi)>=60 or int(s)>=60: return None
    return int(h)*3600+int(mi)*60+int(s)+(int(f)/10**len(f) if f else 0)
rows=[]
for root,_,files in os.walk('.'):
    for f in sorted(files):
        if not f.endswith('.xml'): continue
        p=os.path.join(root,f)[2:]
        try:
            r=ET.parse(p).getroot()
        except ET.ParseError as e:
            rows.append((p,'MALFORMED',str(e))); continue
        ads=[c for c in r if local(c.tag)=='Ad']
        first=ads[0] if ads else None
        wrapper = first is not None and any(local(c.tag)=='Wrapper' for c in first)
        media = 0; d='-'
        if first is not None:
            media = sum(1 for e in first.iter() if local(e.tag)=='MediaFile')
            lin=[e for e in first.iter() if local(e.tag)=='Linear']
            if lin:
                ds=[c for c in lin[0] if local(c.tag)=='Duration']
                if ds:
                    v=dur(ds[0].text or '')
                    d='-' if v is None else repr(v)
        uri='-'
        if first is not None:
            u=[e for e in first.iter() if local(e.tag)=='VASTAdTagURI']
            if u: uri=(u[0].text or '').strip() or '-'
        imps=sum(1 for e in r.iter() if local(e.tag)=='Impression')
        errs=sum(1 for e in r.iter() if local(e.tag)=='Error')
        rows.append((p, r.get('version','-'), str(len(ads)), str(wrapper).lower(), d, str(media), str(imps), str(errs), uri))
rows.sort()
for row in rows: print('\t'.join(row))
