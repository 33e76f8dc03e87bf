#!/usr/bin/env python3
"""Builds corpus/validate-pairs/ from prebid-server's adapter test fixtures.

Each fixture's httpCalls[i] holds what the adapter sent (expectedRequest.body) and what the bidder answered
(mockResponse.body). For every adapter, the first exemplary fixture (in path order) whose first 200 call has an
OpenRTB bid request (a non-empty `imp` array) and an OpenRTB bid response (a `seatbid` array) gives one pair,
written as the envelope POST /validate takes: {"request": <request>, "response": <response>}, compact JSON.

usage: pairs_from_prebid.py GIT_DIR OUT_DIR
"""
import json
import subprocess
import sys
from pathlib import Path


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True).stdout


def main(repo, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    commit = git(repo, "rev-parse", "HEAD").decode().strip()
    files = git(repo, "ls-tree", "-r", "--name-only", "HEAD", "adapters/").decode().splitlines()
    fixtures = sorted(f for f in files if "test/exemplary/" in f and f.endswith(".json"))
    done, rows = set(), []
    for path in fixtures:
        adapter = path.split("/")[1]
        if adapter in done:
            continue
        try:
            doc = json.loads(git(repo, "show", f"HEAD:{path}"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        for i, call in enumerate(doc.get("httpCalls") or []):
            req = (call.get("expectedRequest") or {}).get("body")
            res = call.get("mockResponse") or {}
            body = res.get("body")
            if res.get("status") != 200 or not isinstance(req, dict) or not isinstance(body, dict):
                continue
            if not isinstance(req.get("imp"), list) or not req["imp"] or not isinstance(body.get("seatbid"), list):
                continue
            name = f"{adapter}_{Path(path).stem}.json"
            text = '{"request":%s,"response":%s}\n' % (
                json.dumps(req, separators=(",", ":"), ensure_ascii=False),
                json.dumps(body, separators=(",", ":"), ensure_ascii=False),
            )
            (out / name).write_text(text, encoding="utf-8")
            rows.append((name, path, str(i)))
            done.add(adapter)
            break
    with open(out / "SOURCES.tsv", "w", encoding="utf-8") as f:
        f.write(f"# prebid/prebid-server commit {commit}, Apache-2.0 (see LICENSE)\n")
        f.write("file\tfixture\thttpCalls index\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    (out / "LICENSE").write_bytes(git(repo, "show", "HEAD:LICENSE"))
    print(f"{len(rows)} pairs from {len(fixtures)} exemplary fixtures")


if __name__ == "__main__":
    main(*sys.argv[1:])
