#!/usr/bin/env bash
# The server's CPU time per auction under load: `bidscan serve`, one worker pinned to SERVER_CPU, log level warn;
# wrk (one thread pinned to LOAD_CPU, CONNS connections, closed loop, 127.0.0.1) posting the benchmark auction of
# 5 bidders (benches/src/auction.rs) as one POST /validate/auction?view=summary, against the same 5 responses as
# /decode calls and as /validate calls (benches/http/auction.lua). CPU: every thread of the server,
# /proc/PID/task/*/schedstat (user and kernel time on the CPU, ns), read before and after each run, over the
# requests wrk made. The kinds run in turn, ROUNDS times; the median round of each is shown. A round is one
# auction or five calls, so the calls' µs per request are multiplied by 5.
#
#   cargo build --release -p bidscan-server
#   cargo build --release -p bidscan-bench --bin auction_multipart
#   benches/http/auction_cpu.sh            # DURATION=5s CONNS=8 ROUNDS=3
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIDSCAN_BIN=${BIDSCAN_BIN:-$TARGET/release/bidscan}
AUCTION_BIN=${AUCTION_BIN:-$TARGET/release/auction_multipart}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-8}
ROUNDS=${ROUNDS:-3}
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
PORT=${PORT:-18192}
OUT=${OUT:-$(mktemp -d /tmp/bidscan-auction-cpu.XXXXXX)}
mkdir -p "$OUT/files"
"$AUCTION_BIN" write "$OUT/files"

BIDSCAN__SERVER__LISTEN=127.0.0.1:$PORT BIDSCAN__SERVER__WORKER_THREADS=1 BIDSCAN__LOG__LEVEL=warn \
    BIDSCAN__SERVER__DRAIN_GRACE_SECS=0 taskset -c "$SERVER_CPU" "$BIDSCAN_BIN" serve >"$OUT/bidscan.log" 2>&1 &
PID=$!
trap 'kill -INT $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && break
    sleep 0.1
done

cpu_ns() {
    local total=0 t
    for t in /proc/"$PID"/task/*/schedstat; do
        [[ -r $t ]] && total=$((total + $(cut -d" " -f1 "$t" 2>/dev/null || echo 0)))
    done
    echo "$total"
}

for round in $(seq "$ROUNDS"); do
    for kind in auction decode validate; do
        before=$(cpu_ns)
        line=$(KIND=$kind FILES="$OUT/files" taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNS" -d"$DURATION" \
            -s "$ROOT/benches/http/auction.lua" "http://127.0.0.1:$PORT" | tail -1)
        after=$(cpu_ns)
        echo "${line%\}},\"cpu_ns\":$((after - before))}" >"$OUT/$kind-$round.json"
    done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
per = {}
for kind, calls in (("auction", 1), ("decode", 5), ("validate", 5)):
    runs = [json.load(open("%s/%s-%d.json" % (out, kind, r))) for r in range(1, rounds + 1)]
    for r in runs:
        if r["errors"]:
            sys.exit("%s: %d errors or non-2xx answers" % (kind, r["errors"]))
    us = [r["cpu_ns"] / r["requests"] * calls / 1000 for r in runs]
    rps = [r["requests"] / r["duration_us"] * 1e6 / calls for r in runs]
    per[kind] = statistics.median(us)
    print("%-8s CPU µs per round %.1f (rounds: %s); rounds/s %.0f" % (
        kind, per[kind], " ".join("%.1f" % u for u in us), statistics.median(rps)))
print("auction/decode %.3f  auction/validate %.3f" % (per["auction"] / per["decode"], per["auction"] / per["validate"]))
PY
