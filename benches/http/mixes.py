#!/usr/bin/env python3
"""Builds the HTTP bench mixes of real bodies: one compact JSON document per line, for benches/http/service.sh.

    benches/http/mixes.py OUT_DIR            # writes OUT_DIR/{real-nobid,real-banner,real-native,real-mix,vast,minimal}.lines

Bodies: corpus/real-fixtures-compact/ (prebid-server adapter fixtures, compacted; see its README and LICENSE) and,
for video, the synthetic VAST documents of corpus/bid-responses/. Each real body is put in one class by what its
bids are, and a body whose bids are of more than one class, or that is not a JSON object, is left out:
- no-bid: no bid at all (no or empty `seatbid`, empty `bid` arrays, `nbr`), and only BidResponse members unless
  it has `nbr` (a body in a bidder's own protocol is answered 422 `not_a_bid_response`, not a no-bid);
- native: every bid has `mtype` 4, `ext.prebid.type` "native", or an `adm` that is a JSON object in a string;
- banner: every bid has `mtype` 1, `ext.prebid.type` "banner", or an `adm` that starts with `<` and is not VAST;
- (video and unclassified real bodies are not used: video comes from the synthetic VAST files, which carry
  production-sized markup.)
`real-mix` is 1,000 lines by count: 600 no-bid, 250 banner, 100 video (synthetic VAST), 50 native, each class
cycled in a fixed shuffled order (seed 18), then the lines shuffled. `vast` is the synthetic VAST mix
(vast_*, vast_php_*, vast_intl_*), as benches/http/load.sh's.
"""
import json
import os
import random
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
REAL = os.path.join(ROOT, "corpus", "real-fixtures-compact")
SYNTH = os.path.join(ROOT, "corpus", "bid-responses")


# OpenRTB 2.6 §4.2.1: the members of a BidResponse.
RESPONSE_MEMBERS = {"id", "seatbid", "bidid", "cur", "customdata", "nbr", "ext"}


def kind_of_bid(bid):
    if not isinstance(bid, dict):
        return None
    ext = bid.get("ext")
    prebid = ext.get("prebid") if isinstance(ext, dict) else None
    declared = prebid.get("type") if isinstance(prebid, dict) else None
    adm = bid.get("adm")
    markup = adm.lstrip() if isinstance(adm, str) else ""
    mtype = bid.get("mtype")
    if mtype == 4 or declared == "native" or markup.startswith("{"):
        return "native"
    if mtype == 2 or declared == "video" or markup.startswith(("<VAST", "<?xml")):
        return "video"
    if mtype == 1 or declared == "banner" or markup.startswith("<"):
        return "banner"
    return None


def classify(doc):
    if not isinstance(doc, dict):
        return None
    seatbids = doc.get("seatbid") or []
    if not isinstance(seatbids, list):
        return None
    bids = []
    for sb in seatbids:
        if not isinstance(sb, dict):
            return None
        bids.extend(sb.get("bid") or [])
    if not bids:
        spec = "nbr" in doc or "seatbid" in doc or set(doc) <= RESPONSE_MEMBERS
        return "nobid" if spec else None
    kinds = {kind_of_bid(b) for b in bids}
    return kinds.pop() if len(kinds) == 1 else None


def real_classes():
    classes = {"nobid": [], "banner": [], "native": []}
    for name in sorted(os.listdir(REAL)):
        if not name.endswith(".json"):
            continue
        raw = open(os.path.join(REAL, name), "rb").read()
        try:
            doc = json.loads(raw)
        except ValueError:
            continue
        kind = classify(doc)
        if kind in classes and b"\n" not in raw:
            classes[kind].append(raw)
    return classes


def vast():
    names = sorted(n for n in os.listdir(SYNTH) if n.startswith("vast_") and n.endswith(".json"))
    return [open(os.path.join(SYNTH, n), "rb").read().strip() for n in names]


def cycled(items, n, rng):
    order = items[:]
    rng.shuffle(order)
    return [order[i % len(order)] for i in range(n)]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    rng = random.Random(18)
    classes = real_classes()
    video = vast()
    mixes = {
        "real-nobid": classes["nobid"],
        "real-banner": classes["banner"],
        "real-native": classes["native"],
        "vast": video,
        # The smallest bid response (OpenRTB 2.6 §4.2.1: `id` is its one required member): what the service's
        # stack costs when the decode costs nearly nothing. Not in the default mixes; run it with
        # MIXES=minimal to see how close to the floors the stack alone gets.
        "minimal": [b'{"id":"1"}'],
    }
    mix = (cycled(classes["nobid"], 600, rng) + cycled(classes["banner"], 250, rng)
           + cycled(video, 100, rng) + cycled(classes["native"], 50, rng))
    rng.shuffle(mix)
    mixes["real-mix"] = mix
    for name, lines in mixes.items():
        with open(os.path.join(out, name + ".lines"), "wb") as f:
            for line in lines:
                f.write(line + b"\n")
        sizes = sorted(len(x) for x in lines)
        print("%s: %d documents, median %d B, mean %d B" % (name, len(lines), sizes[len(sizes) // 2],
                                                           sum(sizes) // len(sizes)), file=sys.stderr)


if __name__ == "__main__":
    main()
