#!/usr/bin/env bash
# Instructions per HTTP request (callgrind), `bidscan serve` or the baseline server, one document POSTed to
# /decode over one kept-alive connection: (Ir at N2 requests − Ir at N1 requests) / (N2 − N1), which cancels
# start-up, the first connection and warm-up. Repeatable where req/s on a shared machine are not. Counts every
# thread of the server process (one tokio worker); the client (python http.client) is not counted.
#
# glibc's memcpy is kept on its vector loop, as in benches/report/callgrind.sh (callgrind counts each byte of a
# `rep movsb` as one instruction).
#
#   cargo build --release -p bidscan-server
#   cargo build --release -p bidscan-bench --features http --bin baseline_server
#   benches/http/callgrind.sh bidscan corpus/bid-responses/nobid_nbr.json
#   benches/http/callgrind.sh baseline corpus/bid-responses/vast_020k.json
#   benches/http/callgrind.sh floor corpus/bid-responses/nobid_nbr.json   # plain hyper, fixed answer (the floor)
# LOG_LEVEL=info measures bidscan at its default log level (one INFO span per request) instead of warn.
# QUERY='?view=summary' posts to /decode?view=summary (both servers take it). STATUS=400 expects that status of
# every answer instead of 200 (a malformed document). Other BIDSCAN__… variables reach bidscan, e.g.
# BIDSCAN__CAPTURE__DIR=/tmp/captures turns [capture] on.
# VALGRIND_OPTS='--cache-sim=yes --branch-sim=yes --compress-strings=no' adds simulated L1 misses and branch
# mispredictions (valgrind reads the variable itself); benches/report/cg_self.py gives them per function.
# Prints "SERVER DOC instructions-per-request"; the callgrind output (the N2 − N1 requests only) stays in $OUT for
# callgrind_annotate.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIDSCAN_BIN=${BIDSCAN_BIN:-$TARGET/release/bidscan}
BASELINE_BIN=${BASELINE_BIN:-$TARGET/release/baseline_server}
FLOOR_BIN=${FLOOR_BIN:-$TARGET/release/floor_server}
SERVER=${1:?bidscan, baseline or floor}
DOC=${2:?a document to POST}
QUERY=${QUERY:-}
N1=${N1:-1000}
N2=${N2:-3000}
PORT=${PORT:-18190}
OUT=${OUT:-$(mktemp -d /tmp/bidscan-http-callgrind.XXXXXX)}
mkdir -p "$OUT"
export GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=1000000000:glibc.cpu.x86_rep_stosb_threshold=1000000000
CG=(valgrind --tool=callgrind --callgrind-out-file="$OUT/$SERVER.out.%p")

case $SERVER in
    bidscan)
        BIDSCAN__SERVER__LISTEN=127.0.0.1:$PORT BIDSCAN__SERVER__WORKER_THREADS=1 BIDSCAN__LOG__LEVEL=${LOG_LEVEL:-warn} \
            BIDSCAN__SERVER__DRAIN_GRACE_SECS=0 "${CG[@]}" "$BIDSCAN_BIN" serve >"$OUT/$SERVER.log" 2>&1 &
        ;;
    baseline)
        BASELINE_WORKERS=1 "${CG[@]}" "$BASELINE_BIN" "127.0.0.1:$PORT" >"$OUT/$SERVER.log" 2>&1 &
        ;;
    floor)
        FLOOR_WORKERS=1 "${CG[@]}" "$FLOOR_BIN" "127.0.0.1:$PORT" >"$OUT/$SERVER.log" 2>&1 &
        ;;
    *) echo "unknown server $SERVER" >&2; exit 1 ;;
esac
PID=$!
trap 'kill -INT $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT

requests() { # N: N kept-alive POST /decode of $DOC, each answered $STATUS
    python3 - "$PORT" "$DOC" "$1" "$QUERY" "${STATUS:-200}" <<'EOF'
import http.client, sys
port, path, n, query, status = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
body = open(path, "rb").read()
c = http.client.HTTPConnection("127.0.0.1", port)
for _ in range(n):
    c.request("POST", "/decode" + query, body=body, headers={"content-type": "application/json"})
    r = c.getresponse()
    r.read()
    if r.status != status:
        sys.exit("answered %d" % r.status)
c.close()
EOF
}

for _ in $(seq 300); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && break
    sleep 0.2
done
requests "$N1"
callgrind_control --zero "$PID" >/dev/null 2>&1
requests $((N2 - N1))
callgrind_control --dump=measured "$PID" >/dev/null 2>&1
dump=$(ls "$OUT/$SERVER.out.$PID".* | head -1)
ir=$(grep -E '^summary:|^totals:' "$dump" | head -1 | awk '{print $2}')
echo "$SERVER $(basename "$DOC") $((ir / (N2 - N1)))"
