#!/usr/bin/env bash
# HTTP load: `bidscan serve` against the baseline server (benches/src/bin/baseline_server.rs: axum + serde_json +
# mimalloc doing the same decode, validation and summary) with oha, on 127.0.0.1 only, bounded in time.
#
# Both servers run with one tokio worker pinned to SERVER_CPU; oha runs pinned to LOAD_CPU. For each corpus mix
# (oha -Z: one document per line, drawn at random per request) and each server:
#   1. closed loop, CONNS connections, DURATION: the most requests/s it sustains, with latency percentiles;
#   2. open loop at RATE_FRACTION of the slower server's closed-loop rate for that mix, the same rate for both,
#      with oha --latency-correction (latency counted from when a request was due, not when it was sent, so a
#      stalled server cannot hide its queue: no coordinated omission).
# Prints a markdown table; raw oha JSON is kept in $OUT.
#
# Build first:
#   cargo build --release -p bidscan-server
#   cargo build --release -p bidscan-bench --features http --bin baseline_server
#   cargo install oha --locked
# Run:
#   benches/http/load.sh                       # DURATION=10s CONNS=16 RATE_FRACTION=0.5
#   DURATION=5s MIXES="corpus vast" benches/http/load.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIDSCAN_BIN=${BIDSCAN_BIN:-$TARGET/release/bidscan}
BASELINE_BIN=${BASELINE_BIN:-$TARGET/release/baseline_server}
OHA=${OHA:-oha}
DURATION=${DURATION:-10s}
CONNS=${CONNS:-16}
RATE_FRACTION=${RATE_FRACTION:-0.5}
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
BIDSCAN_ADDR=127.0.0.1:${BIDSCAN_PORT:-18090}
BASELINE_ADDR=127.0.0.1:${BASELINE_PORT:-18091}
MIXES=${MIXES:-"corpus vast banner native multiseat nobid"}
OUT=${OUT:-$(mktemp -d /tmp/bidscan-load.XXXXXX)}
mkdir -p "$OUT"
CORPUS=$ROOT/corpus/bid-responses

for bin in "$BIDSCAN_BIN" "$BASELINE_BIN"; do
    [[ -x $bin ]] || { echo "missing $bin (see the build line at the top of $0)" >&2; exit 1; }
done
command -v "$OHA" >/dev/null || { echo "oha not found: cargo install oha --locked" >&2; exit 1; }

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do
        kill -INT "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
trap cleanup EXIT

# One document per line (the corpus files are single-line JSON).
mix_files() {
    case $1 in
        corpus) ls "$CORPUS"/*.json ;;
        vast) ls "$CORPUS"/vast_0*.json "$CORPUS"/vast_1*.json "$CORPUS"/vast_php_*.json "$CORPUS"/vast_intl_*.json ;;
        banner) ls "$CORPUS"/banner_*.json ;;
        native) ls "$CORPUS"/native_*.json ;;
        multiseat) ls "$CORPUS"/multiseat_*.json ;;
        nobid) ls "$CORPUS"/nobid_*.json "$CORPUS"/nurl_only.json ;;
        *) echo "unknown mix $1" >&2; exit 1 ;;
    esac
}
for mix in $MIXES; do
    : >"$OUT/$mix.lines"
    for f in $(mix_files "$mix"); do
        cat "$f" >>"$OUT/$mix.lines"
        echo >>"$OUT/$mix.lines"
    done
done

wait_ready() {
    for _ in $(seq 100); do
        curl -fsS "http://$1/healthz" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "server on $1 did not come up" >&2
    exit 1
}

BIDSCAN__SERVER__LISTEN=$BIDSCAN_ADDR BIDSCAN__SERVER__WORKER_THREADS=1 BIDSCAN__LOG__LEVEL=warn \
    taskset -c "$SERVER_CPU" "$BIDSCAN_BIN" serve >"$OUT/bidscan.log" 2>&1 &
PIDS+=($!)
BASELINE_WORKERS=1 taskset -c "$SERVER_CPU" "$BASELINE_BIN" "$BASELINE_ADDR" >"$OUT/baseline.log" 2>&1 &
PIDS+=($!)
wait_ready "$BIDSCAN_ADDR"
wait_ready "$BASELINE_ADDR"

# Every document of every mix must be answered 200 by both servers before anything is measured.
for mix in $MIXES; do
    while IFS= read -r line; do
        for addr in "$BIDSCAN_ADDR" "$BASELINE_ADDR"; do
            code=$(printf '%s' "$line" | curl -s -o /dev/null -w '%{http_code}' -H 'content-type: application/json' \
                --data-binary @- "http://$addr/decode")
            [[ $code == 200 ]] || { echo "$addr answered $code on a $mix document" >&2; exit 1; }
        done
    done <"$OUT/$mix.lines"
done

# run NAME ADDR MIX [RATE] -> $OUT/NAME-MIX-{closed,open}.json
run() {
    local name=$1 addr=$2 mix=$3 rate=${4:-} kind=closed extra=()
    if [[ -n $rate ]]; then
        kind=open
        extra=(-q "$rate" --latency-correction)
    fi
    taskset -c "$LOAD_CPU" "$OHA" -z "$DURATION" -c "$CONNS" -m POST -H 'content-type: application/json' \
        -Z "$OUT/$mix.lines" --no-tui --output-format json "${extra[@]}" "http://$addr/decode" \
        >"$OUT/$name-$mix-$kind.json"
}

field() { # FILE -> "rps p50_us p99_us p99.9_us ok%"
    python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["latencyPercentiles"]
us = lambda k: "%.0f" % (1e6 * p[k]) if p.get(k) is not None else "-"
codes = r.get("statusCodeDistribution", {})
ok = 100.0 * codes.get("200", 0) / max(1, sum(codes.values()))
print("%.0f %s %s %s %.1f" % (r["summary"]["requestsPerSec"], us("p50"), us("p99"), us("p99.9"), ok))
EOF
}

echo "| mix | server | closed: req/s | p50 µs | p99 µs | p99.9 µs | open: rate | p50 µs | p99 µs | p99.9 µs | 200s |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for mix in $MIXES; do
    run bidscan "$BIDSCAN_ADDR" "$mix"
    run baseline "$BASELINE_ADDR" "$mix"
    read -r b_rps _ <<<"$(field "$OUT/bidscan-$mix-closed.json")"
    read -r s_rps _ <<<"$(field "$OUT/baseline-$mix-closed.json")"
    rate=$(python3 -c "print(max(1, int($RATE_FRACTION * min($b_rps, $s_rps))))")
    run bidscan "$BIDSCAN_ADDR" "$mix" "$rate"
    run baseline "$BASELINE_ADDR" "$mix" "$rate"
    for name in bidscan baseline; do
        read -r rps c50 c99 c999 _ <<<"$(field "$OUT/$name-$mix-closed.json")"
        read -r orps o50 o99 o999 ok <<<"$(field "$OUT/$name-$mix-open.json")"
        echo "| $mix | $name | $rps | $c50 | $c99 | $c999 | $rate (got $orps) | $o50 | $o99 | $o999 | $ok% |"
    done
done
echo
echo "DURATION=$DURATION CONNS=$CONNS RATE_FRACTION=$RATE_FRACTION servers on CPU $SERVER_CPU, oha on CPU $LOAD_CPU; raw: $OUT"
