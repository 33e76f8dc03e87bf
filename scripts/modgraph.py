#!/usr/bin/env python3
"""File-level import graph of one crate's src/ (from `use crate::…`, `use super::…`, `crate::x::`/`super::x::` paths and a
mod.rs's `use child::…`; comments, `pub(in …)` and `super::` inside inline modules ignored), then its circles.

    python3 scripts/modgraph.py crates/bidscan-json/src      # edges, then "circles: none" or the strongly connected sets
"""
import os,re,sys
root=sys.argv[1]
files={}
for d,_,fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'): files[os.path.relpath(os.path.join(d,f),root)]=open(os.path.join(d,f)).read()
def modpath(rel):
    p=rel[:-3].split('/')
    if p[-1] in('mod','lib'): p=p[:-1]
    return p
def resolve(parts):
    # longest prefix that is a file
    for n in range(len(parts),-1,-1):
        cand='/'.join(parts[:n])
        for c in ([cand+'.rs',cand+'/mod.rs'] if cand else ['lib.rs']):
            if c in files: return c
    return None
edges=set()
for rel,src in files.items():
    src=re.sub(r'#\[cfg\(test\)\]\s*mod tests;','',src)
    src='\n'.join(l for l in src.splitlines() if not l.lstrip().startswith('//'))
    src=src.split('#[cfg(test)]\nmod tests {')[0]
    me=modpath(rel)
    isdir=rel.endswith('mod.rs') or rel=='lib.rs'
    src=re.sub(r'pub\(in [\w:]+\)','pub',src)
    # `super::` inside an inline module of a file names that file itself: not an edge.
    src='\n'.join(l for l in src.splitlines() if not (l.startswith(' ') and 'super::' in l and not isdir))
    for m in re.finditer(r'\b(crate|super)((?:::\w+)+)',src):
        parts=m.group(2).strip(':').split('::')
        if m.group(1)=='crate': base=[]
        else: base=me if isdir else me[:-1]; base=base[:-1] if isdir else base
        if m.group(1)=='super' and not isdir: base=me[:-1]
        elif m.group(1)=='super': base=me[:-1]
        # braces: use super::{a, b}
        tgt=resolve(base+parts)
        if tgt and tgt!=rel: edges.add((rel,tgt))
    for m in re.finditer(r'\b(crate|super)::\{([^}]*)\}',src):
        base=[] if m.group(1)=='crate' else me[:-1]
        for item in m.group(2).split(','):
            item=item.strip().split(' ')[0]
            if not item: continue
            tgt=resolve(base+item.split('::'))
            if tgt and tgt!=rel: edges.add((rel,tgt))
for rel,src in files.items():
    if rel.endswith('mod.rs') or rel=='lib.rs':
        me=modpath(rel)
        for m in re.finditer(r'^\s*(?:pub(?:\([^)]*\))? )?use (\w+)::',src,re.M):
            if m.group(1) in ('std','core','serde','crate','super','self','simdutf8'): continue
            tgt=resolve(me+[m.group(1)])
            if tgt and tgt!=rel: edges.add((rel,tgt))
for a,b in sorted(edges): print(f"{a} -> {b}")
# cycles
import collections
g=collections.defaultdict(set)
for a,b in edges: g[a].add(b)
cyc=[(a,b) for a,b in edges if a in g[b]]
# SCCs
index={};low={};st=[];on=set();sccs=[];i=[0]
def sc(v):
    index[v]=low[v]=i[0];i[0]+=1;st.append(v);on.add(v)
    for w in g[v]:
        if w not in index: sc(w);low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],index[w])
    if low[v]==index[v]:
        c=[]
        while True:
            w=st.pop();on.discard(w);c.append(w)
            if w==v:break
        if len(c)>1: sccs.append(c)
for v in list(files):
    if v not in index: sc(v)
print("circles:",sccs if sccs else "none")
