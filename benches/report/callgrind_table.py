#!/usr/bin/env python3
"""Joins the per-family outputs of callgrind.sh (FAMILY.md files in DIR) into one markdown table with the ratio
of the fewest-instruction peer to bidscan (full OpenRTB decode) and to bidscan-mirror (reader only, same target as
the peers).

usage: callgrind_table.py DIR
"""
import re
import sys

FAMS = ("vast vast_php vast_intl banner_go banner_plain native multiseat nobid seed_no_escape seed_escape_at_end "
        "seed_escape_at_1 seed_106_escapes corpus").split()
DECS = ["memcpy", "bidscan", "bidscan-mirror", "serde_json", "sonic-rs", "simd-json", "jiter"]
PEERS = ["serde_json", "sonic-rs", "simd-json", "jiter"]

d = sys.argv[1]
print("| family | " + " | ".join(DECS) + " | fewest peer | peer ÷ bidscan | peer ÷ bidscan-mirror |")
print("|---|" + "---:|" * len(DECS) + "---|---:|---:|")
for f in FAMS:
    v = {}
    try:
        for line in open(f"{d}/{f}.md"):
            m = re.match(r"\| (\S+) \| (\d+) \|", line)
            if m:
                v[m.group(1)] = int(m.group(2))
    except FileNotFoundError:
        continue
    best = min(PEERS, key=lambda p: v[p])
    name = "**corpus**" if f == "corpus" else f
    cells = " | ".join(f"{v[x]:,}" for x in DECS)
    print(f"| {name} | {cells} | {best} | {v[best] / v['bidscan']:.2f}× | {v[best] / v['bidscan-mirror']:.2f}× |")
