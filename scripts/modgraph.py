#!/usr/bin/env python3
"""File-level import graph of one crate's src/ (from `use crate::…`, `use super::…`, `crate::x::`/`super::x::` paths and a
mod.rs's `use child::…`; comments, `pub(in …)` and `super::` inside inline modules ignored), then its circles.

A `mod.rs` and its own children (the files and folders beside it) may import each other: those edges are printed but
left out of the circles. A circle whose files all lie in one directory is reported as allowed; a circle across
directories is an error.

    python3 scripts/modgraph.py crates/bidscan-json/src      # edges, then "circles: none" or the strongly connected sets
    python3 scripts/modgraph.py --check                      # every crates/*/src: exit 1 on a circle across directories
"""
import collections,os,re,sys

def graph(root):
    """The (importer, imported) file pairs of the crate source at `root`, and its file names."""
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
    return files,edges

def parent_child(a,b):
    """True when one of the two is a `mod.rs` and the other one of its own children."""
    for m,c in ((a,b),(b,a)):
        if m.endswith('/mod.rs'):
            d=m[:-len('mod.rs')]
            if c.startswith(d) and c!=m and '/' not in c[len(d):].replace('/mod.rs',''): return True
    return False

def circles(files,edges):
    """Strongly connected sets of more than one file, parent–child edges of a `mod.rs` left out."""
    g=collections.defaultdict(set)
    for a,b in edges:
        if not parent_child(a,b): g[a].add(b)
    index={};low={};st=[];on=set();sccs=[];i=[0]
    def sc(v):
        index[v]=low[v]=i[0];i[0]+=1;st.append(v);on.add(v)
        for w in sorted(g[v]):
            if w not in index: sc(w);low[v]=min(low[v],low[w])
            elif w in on: low[v]=min(low[v],index[w])
        if low[v]==index[v]:
            c=[]
            while True:
                w=st.pop();on.discard(w);c.append(w)
                if w==v:break
            if len(c)>1: sccs.append(sorted(c))
    for v in sorted(files):
        if v not in index: sc(v)
    return sccs

def across(c):
    return len({os.path.dirname(f) for f in c})>1

def main():
    if sys.argv[1:]==['--check']:
        here=os.path.dirname(os.path.abspath(__file__))
        top=os.path.join(here,'..','crates')
        bad=0
        for crate in sorted(os.listdir(top)):
            root=os.path.join(top,crate,'src')
            if not os.path.isdir(root): continue
            files,edges=graph(root)
            for c in circles(files,edges):
                kind='ACROSS DIRECTORIES' if across(c) else 'within one directory (allowed)'
                print(f"crates/{crate}/src: circle {kind}: {c}")
                bad+=across(c)
        print(f"modgraph: {bad} circle(s) across directories")
        return 1 if bad else 0
    files,edges=graph(sys.argv[1])
    for a,b in sorted(edges): print(f"{a} -> {b}")
    cs=circles(files,edges)
    print("circles:",cs if cs else "none")
    for c in cs:
        if across(c): print("  across directories:",c)
    return 0

if __name__=='__main__':
    sys.exit(main())
