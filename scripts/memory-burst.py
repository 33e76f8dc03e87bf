#!/usr/bin/env python3
"""Memory under a burst of held bodies (RELIABILITY.md, "Memory bounded by bytes").

Starts the release `bidscan` (target/release/bidscan, or $BIDSCAN_BIN) on 127.0.0.1 with the default
configuration, then opens CONNECTIONS connections (default 256) that each send a `/decode` head with
`Content-Length: 4194304` and 4 MiB - 10 bytes of body, and hold. Samples the server's RSS (/proc/PID/status)
throughout. Prints: RSS before the burst, peak RSS (VmHWM), the answers the connections got (503 `memory` and
others), `bidscan_shed_total{reason="memory"}`, `bidscan_inflight_bytes`, and RSS 30 s after the connections
closed, against the bound RSS before + pool.global_retained_bytes + 32 MiB.

    cargo build --release --bin bidscan && python3 scripts/memory-burst.py

Environment: CONNECTIONS, BODY (bytes, default 4194304), SHORT (bytes held back, default 10), IDLE (seconds
after closing, default 30), and anything `BIDSCAN__…` is passed to the server (e.g.
BIDSCAN__SERVER__MAX_INFLIGHT_BYTES, MIMALLOC_* options).
"""

import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BIDSCAN_BIN", os.path.join(ROOT, "target", "release", "bidscan"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "256"))
BODY = int(os.environ.get("BODY", str(4 * 1024 * 1024)))
SHORT = int(os.environ.get("SHORT", "10"))
IDLE = float(os.environ.get("IDLE", "30"))
GLOBAL_RETAINED = 64 * 1024 * 1024  # pool.global_retained_bytes, the default
MIB = 1024 * 1024


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return r.read().decode()


def metric(text, name, labels=""):
    for line in text.splitlines():
        if line.startswith(name + labels + " ") or (not labels and line.startswith(name + " ")):
            return float(line.split()[-1])
    return 0.0


def main():
    port = free_port()
    env = dict(os.environ, BIDSCAN__SERVER__LISTEN=f"127.0.0.1:{port}", BIDSCAN__LOG__LEVEL="error")
    server = subprocess.Popen([BIN, "serve"], env=env, stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                get(port, "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        # Warm: a few small documents on every worker, then settle.
        for _ in range(20):
            req = urllib.request.Request(f"http://127.0.0.1:{port}/decode", data=b'{"id":"x","seatbid":[]}',
                                         method="POST")
            urllib.request.urlopen(req, timeout=5).read()
        time.sleep(1)
        before = status(server.pid, "VmRSS")

        peak = [before]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                try:
                    peak[0] = max(peak[0], status(server.pid, "VmRSS"))
                except OSError:
                    return
                time.sleep(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()

        body = memoryview(b" " * (BODY - SHORT))
        head = (f"POST /decode HTTP/1.1\r\nHost: bidscan\r\nContent-Type: application/json\r\n"
                f"Content-Length: {BODY}\r\n\r\n").encode()
        socks = [None] * CONNECTIONS
        answers = [b""] * CONNECTIONS

        def send(i):
            s = socket.create_connection(("127.0.0.1", port))
            socks[i] = s
            try:
                s.sendall(head)
                s.sendall(body)
            except OSError:
                pass  # answered (503) and closed part-way

        started = time.monotonic()
        threads = [threading.Thread(target=send, args=(i,)) for i in range(CONNECTIONS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        sent = time.monotonic() - started
        time.sleep(1)  # the last frames reach the server
        metrics = get(port, "/metrics")
        held_peak = peak[0]
        for i, s in enumerate(socks):
            s.settimeout(0.01)
            try:
                answers[i] = s.recv(200)
            except OSError:
                pass
        hwm = status(server.pid, "VmHWM")
        for s in socks:
            s.close()
        stop.set()
        # Idle: not even a scrape (one is allocator activity, which lets mimalloc purge what it deferred).
        time.sleep(IDLE)
        after = status(server.pid, "VmRSS")
        metrics_after = get(port, "/metrics")
        inflight_after = metric(metrics_after, "bidscan_inflight_bytes")

        codes = {}
        for a in answers:
            m = re.match(rb"HTTP/1\.1 (\d+)", a)
            code = m.group(1).decode() if m else "none (held)"
            codes[code] = codes.get(code, 0) + 1
        bound = before + GLOBAL_RETAINED + 32 * MIB
        print(f"connections {CONNECTIONS}, each {BODY - SHORT} of {BODY} bytes, sent in {sent:.1f} s")
        print(f"budget (server.max_inflight_bytes): "
              f"{os.environ.get('BIDSCAN__SERVER__MAX_INFLIGHT_BYTES', 'default')}")
        print(f"RSS before:        {before / MIB:8.1f} MiB")
        print(f"RSS peak (sampled):{held_peak / MIB:8.1f} MiB   VmHWM {hwm / MIB:.1f} MiB")
        print(f"answers while held: {dict(sorted(codes.items()))}")
        shed = metric(metrics_after, "bidscan_shed_total", '{reason="memory"}')
        print(f'bidscan_shed_total{{reason="memory"}} {shed:.0f}')
        print(f"bidscan_inflight_bytes while held {metric(metrics, 'bidscan_inflight_bytes') / MIB:.1f} MiB, "
              f"after {IDLE:.0f} s idle {inflight_after:.0f}")
        print(f"RSS {IDLE:.0f} s after closing: {after / MIB:8.1f} MiB   bound (before + 64 MiB + 32 MiB) "
              f"{bound / MIB:.1f} MiB: {'within' if after <= bound else 'PAST'}")
        return 0 if after <= bound else 1
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
