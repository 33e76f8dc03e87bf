#!/usr/bin/env python3
"""Bounded load through the balancer, with one replica stopped mid-run (used by deploy/lb-test.sh).

Sends POST /decode with the corpus documents from --concurrency threads for --duration seconds, each thread on its
own keep-alive connection to the balancer. At --kill-at seconds it reads every replica's /metrics, sends SIGTERM to
--kill-pid and polls that replica's /readyz every 10 ms until its listener is gone. At the end it reads /metrics of
the replicas still running.

Checks, each printed as PASS or FAIL (exit status 1 when any fails):
  (a) every replica served POST /decode (bidscan_http_requests_total{route="/decode"}, summed over status);
  (b) no request failed: every answer through the balancer was 200, none was lost to a connection error;
  (c) the stopped replica answered /readyz with 503 before its listener closed.
Standard library only, so CI needs nothing but python3.
"""

import argparse
import http.client
import json
import os
import re
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def decode_requests(metrics_text, route="/decode"):
    """Sum of bidscan_http_requests_total over every status for one route, from Prometheus text."""
    total = 0.0
    for line in metrics_text.splitlines():
        m = SAMPLE_RE.match(line)
        if not m or m.group(1) != "bidscan_http_requests_total":
            continue
        labels = dict(LABEL_RE.findall(m.group(2) or ""))
        if labels.get("route") == route:
            total += float(m.group(3))
    return int(total)


def get(url, timeout=2.0):
    """GET url -> (status, body text). HTTP error statuses are answers too; connection errors raise OSError."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8", "replace")
    except urllib.error.URLError as err:
        raise OSError(str(err.reason)) from err


class Stats:
    """Counters shared by the load threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.ok = 0
        self.failures = []  # (seconds since start, description)
        self.bytes_sent = 0

    def record(self, ok, t, what=None, sent=0):
        with self.lock:
            self.bytes_sent += sent
            if ok:
                self.ok += 1
            else:
                self.failures.append((round(t, 3), what))


def load_thread(host, port, docs, offset, deadline, start, stats):
    conn = None
    i = offset
    while time.monotonic() < deadline:
        body = docs[i % len(docs)][1]
        i += 1
        if conn is None:
            conn = http.client.HTTPConnection(host, port, timeout=20)
        try:
            conn.request("POST", "/decode", body=body, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
            if resp.status == 200:
                stats.record(True, 0, sent=len(body))
            else:
                what = f"HTTP {resp.status}: {data[:160]!r}"
                stats.record(False, time.monotonic() - start, what, len(body))
            if resp.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException) as err:
            stats.record(False, time.monotonic() - start, f"{type(err).__name__}: {err}")
            conn.close()
            conn = None
    if conn is not None:
        conn.close()


def poll_readiness(base, until):
    """Poll base/readyz every 10 ms until the listener is gone (or `until`, a monotonic time).

    Returns the statuses seen, collapsed to changes, as [(ms since the first poll, status or "refused")], and the
    last POST /decode count read from base/metrics on the way (what the replica served before it stopped).
    """
    start = time.monotonic()
    seen, served = [], None
    while time.monotonic() < until:
        try:
            status, _ = get(base + "/readyz", timeout=1.0)
            served = decode_requests(get(base + "/metrics", timeout=1.0)[1])
        except OSError:
            status = "refused"
        t = int((time.monotonic() - start) * 1000)
        if not seen or seen[-1][1] != status:
            seen.append((t, status))
        if status == "refused":
            break
        time.sleep(0.01)
    return seen, served


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lb", required=True, help="balancer base URL, e.g. http://127.0.0.1:18080")
    ap.add_argument("--replica", action="append", required=True, metavar="NAME=URL",
                    help="replica name and base URL, e.g. bidscan-1=http://127.0.0.1:18081 (repeat)")
    ap.add_argument("--docs", required=True, help="directory of bid-response JSON documents")
    ap.add_argument("--duration", type=float, default=12.0, help="seconds of load (default 12)")
    ap.add_argument("--concurrency", type=int, default=8, help="client threads (default 8)")
    ap.add_argument("--kill-name", required=True, help="replica (NAME from --replica) to stop mid-run")
    ap.add_argument("--kill-pid", type=int, required=True, help="its process id")
    ap.add_argument("--kill-at", type=float, default=4.0, help="seconds into the run (default 4)")
    ap.add_argument("--json", help="also write the results here as JSON")
    args = ap.parse_args()

    replicas = dict(r.split("=", 1) for r in args.replica)
    if args.kill_name not in replicas:
        sys.exit(f"--kill-name {args.kill_name} is not one of {sorted(replicas)}")
    lb = urllib.request.urlparse(args.lb)

    # Preflight: keep the documents a replica decodes with 200 (the load is about the balancer, not the decoder).
    first = next(iter(replicas.values()))
    docs, skipped = [], []
    for path in sorted(Path(args.docs).glob("*.json")):
        body = path.read_bytes()
        req = urllib.request.Request(first + "/decode", data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                docs.append((path.name, body))
        except urllib.error.HTTPError as err:
            skipped.append(f"{path.name} (HTTP {err.code})")
    if len(docs) < 3:
        sys.exit(f"only {len(docs)} documents decode with 200 on {first}; skipped: {skipped}")
    print(f"load: {len(docs)} documents ({sum(len(b) for _, b in docs)} bytes), {args.concurrency} connections, "
          f"{args.duration:.0f} s; SIGTERM to {args.kill_name} (pid {args.kill_pid}) at {args.kill_at:.0f} s")
    if skipped:
        print(f"load: skipped (not 200 on {first}): {', '.join(skipped)}")

    before = {name: decode_requests(get(url + "/metrics")[1]) for name, url in replicas.items()}
    stats = Stats()
    start = time.monotonic()
    deadline = start + args.duration
    threads = [threading.Thread(target=load_thread, daemon=True,
                                args=(lb.hostname, lb.port, docs, n * 7, deadline, start, stats))
               for n in range(args.concurrency)]
    for t in threads:
        t.start()

    time.sleep(max(0.0, start + args.kill_at - time.monotonic()))
    at_kill = {}
    for name, url in replicas.items():
        at_kill[name] = decode_requests(get(url + "/metrics")[1]) - before[name]
    kill_url = replicas[args.kill_name]
    ready_before = get(kill_url + "/readyz")[0]
    os.kill(args.kill_pid, signal.SIGTERM)
    readiness, served_last = poll_readiness(kill_url, until=deadline + 30)

    for t in threads:
        t.join(timeout=args.duration + 30)
    elapsed = time.monotonic() - start
    final = {}
    for name, url in replicas.items():
        if name == args.kill_name:
            final[name] = (served_last if served_last is not None else before[name]) - before[name]
            continue
        final[name] = decode_requests(get(url + "/metrics")[1]) - before[name]

    total = stats.ok + len(stats.failures)
    print(f"\nrequests through the balancer: {total} in {elapsed:.1f} s ({total / elapsed:.0f}/s), "
          f"{stats.ok} ok, {len(stats.failures)} failed")
    print("POST /decode served per replica (from each replica's bidscan_http_requests_total):")
    for name in replicas:
        note = "  (stopped: last scrape before its listener closed)" if name == args.kill_name else ""
        print(f"  {name}: {final[name]:6d} in all, {at_kill[name]:6d} before SIGTERM{note}")
    print(f"readiness of {args.kill_name}: {ready_before} before SIGTERM, then "
          + ", ".join(f"{s} at +{ms} ms" for ms, s in readiness))
    for t, what in stats.failures[:20]:
        print(f"  failure at {t:.3f} s: {what}")

    statuses = [s for _, s in readiness]
    checks = [
        ("(a) every replica served requests", all(at_kill[n] > 0 for n in replicas)
         and all(final[n] > at_kill[n] for n in replicas if n != args.kill_name)),
        ("(b) zero failed requests", stats.ok > 0 and not stats.failures),
        ("(c) readiness 503 before exit", ready_before == 200 and 503 in statuses
         and statuses[-1] == "refused" and statuses.index(503) < statuses.index("refused")),
    ]
    print()
    for name, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'} {name}")
    if not checks[2][1] and 503 not in statuses:
        print(f"  {args.kill_name} stopped answering before /readyz said 503: for [server] drain_grace_secs after "
              "SIGTERM bidscan must go on accepting connections, answering /readyz with 503")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "ok": stats.ok, "failed": len(stats.failures), "failures": stats.failures[:100],
            "per_replica": final, "per_replica_at_kill": at_kill, "readiness": readiness,
            "seconds": round(elapsed, 2), "checks": {n: ok for n, ok in checks}}, indent=2))
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
