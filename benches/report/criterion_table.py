#!/usr/bin/env python3
"""Markdown table of the `peers` criterion groups: median time per iteration for each decoder, throughput, and
bidscan's speed ratio to the fastest peer (serde_json, sonic-rs, simd-json, jiter).

usage: criterion_table.py [CRITERION_DIR]   (default $CARGO_TARGET_DIR/criterion or target/criterion)
"""
import json
import os
import sys

GROUPS = ["vast", "vast_php", "vast_intl", "banner_go", "banner_plain", "native", "multiseat", "nobid",
          "seed_no_escape", "seed_escape_at_end", "seed_escape_at_1", "seed_106_escapes", "corpus"]
DECODERS = ["memcpy", "bidscan", "bidscan-mirror", "serde_json", "sonic-rs", "simd-json", "jiter"]
PEERS = ["serde_json", "sonic-rs", "simd-json", "jiter"]

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "criterion")


def load(group, decoder):
    path = os.path.join(root, group, decoder, "new")
    try:
        est = json.load(open(os.path.join(path, "estimates.json")))
        bench = json.load(open(os.path.join(path, "benchmark.json")))
    except FileNotFoundError:
        return None
    ns = est["median"]["point_estimate"]
    nbytes = (bench.get("throughput") or {}).get("Bytes")
    return ns, nbytes


def fmt_time(ns):
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f µs" % (ns / 1e3)
    return "%.0f ns" % ns


def fmt_rate(nbytes, ns):
    gbps = nbytes / ns  # bytes per ns == GB/s
    return "%.2f GB/s" % gbps if gbps >= 1 else "%.0f MB/s" % (gbps * 1e3)


print("| group (bytes) | " + " | ".join(DECODERS) + " | fastest peer | bidscan vs fastest peer |")
print("|---|" + "---:|" * len(DECODERS) + "---|---:|")
for g in GROUPS:
    rows = {d: load(g, d) for d in DECODERS}
    if rows["bidscan"] is None:
        continue
    nbytes = rows["bidscan"][1]
    cells = []
    for d in DECODERS:
        r = rows[d]
        cells.append("—" if r is None else "%s (%s)" % (fmt_time(r[0]), fmt_rate(nbytes, r[0])))
    peers = [(rows[p][0], p) for p in PEERS if rows[p] is not None]
    best_ns, best = min(peers)
    ratio = best_ns / rows["bidscan"][0]
    label = "**%.2f× faster**" % ratio if ratio >= 1 else "**%.2f× slower**" % (1 / ratio)
    name = "**corpus**" if g == "corpus" else g
    print("| %s (%d) | %s | %s | %s |" % (name, nbytes, " | ".join(cells), best, label))
