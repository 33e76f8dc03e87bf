#!/usr/bin/env bash
# Instructions per auction over HTTP (callgrind): `bidscan serve`, one worker, `view=summary`, one kept-alive
# connection; the benchmark auction of 5 bidders (benches/src/auction.rs) as one POST /validate/auction, against
# the same 5 responses as five POST /decode and as five POST /validate (each with the request). Each kind is
# measured as benches/http/callgrind.sh measures a request: (Ir after N2 rounds − Ir after N1 rounds) / (N2 − N1),
# the counters zeroed and dumped around its own rounds, so start-up and warm-up cancel. Counts every thread of the
# server process; the client (python http.client) is not counted.
#
#   cargo build --release -p bidscan-server
#   cargo build --release -p bidscan-bench --bin auction_multipart   (or AUCTION_BIN=: any build writes the files)
#   benches/http/auction_callgrind.sh
# Prints one line per kind: "KIND instructions-per-round" (a round: one auction, five /decode or five /validate)
# and the two ratios.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIDSCAN_BIN=${BIDSCAN_BIN:-$TARGET/release/bidscan}
AUCTION_BIN=${AUCTION_BIN:-$TARGET/release/auction_multipart}
N1=${N1:-200}
N2=${N2:-600}
PORT=${PORT:-18191}
OUT=${OUT:-$(mktemp -d /tmp/bidscan-auction-callgrind.XXXXXX)}
mkdir -p "$OUT/files"
"$AUCTION_BIN" write "$OUT/files"
export GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=1000000000:glibc.cpu.x86_rep_stosb_threshold=1000000000

BIDSCAN__SERVER__LISTEN=127.0.0.1:$PORT BIDSCAN__SERVER__WORKER_THREADS=1 BIDSCAN__LOG__LEVEL=warn \
    BIDSCAN__SERVER__DRAIN_GRACE_SECS=0 valgrind --tool=callgrind --callgrind-out-file="$OUT/bidscan.out.%p" \
    "$BIDSCAN_BIN" serve >"$OUT/bidscan.log" 2>&1 &
PID=$!
trap 'kill -INT $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT

rounds() { # KIND N: N rounds of KIND (auction | decode | validate), each answered 200
    python3 - "$PORT" "$OUT/files" "$1" "$2" <<'PY'
import http.client, sys, os
port, files, kind, n = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
read = lambda name: open(os.path.join(files, name), "rb").read()
if kind == "auction":
    boundary = read("boundary.txt").decode()
    calls = [("/validate/auction?view=summary", read("auction.multipart"),
              "multipart/form-data; boundary=" + boundary)]
else:
    name = "response-%d.json" if kind == "decode" else "envelope-%d.json"
    calls = [("/%s?view=summary" % kind, read(name % k), "application/json") for k in range(5)]
c = http.client.HTTPConnection("127.0.0.1", port)
for _ in range(n):
    for path, body, ctype in calls:
        c.request("POST", path, body=body, headers={"content-type": ctype})
        r = c.getresponse()
        r.read()
        if r.status != 200:
            sys.exit("%s answered %d" % (path, r.status))
c.close()
PY
}

for _ in $(seq 300); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && break
    sleep 0.2
done
declare -A per
for kind in auction decode validate; do
    rounds "$kind" "$N1"
    callgrind_control --zero "$PID" >/dev/null 2>&1
    rounds "$kind" $((N2 - N1))
    callgrind_control --dump="$kind" "$PID" >/dev/null 2>&1
    sleep 1
    dump=$(grep -al "^desc: Trigger: dump $kind\$" "$OUT"/bidscan.out.$PID.* | head -1)
    ir=$(grep -E '^summary:|^totals:' "$dump" | head -1 | awk '{print $2}')
    per[$kind]=$((ir / (N2 - N1)))
    echo "$kind ${per[$kind]}"
done
python3 -c "a,d,v=${per[auction]},${per[decode]},${per[validate]}; print('auction/decode %.3f  auction/validate %.3f' % (a/d, a/v))"
