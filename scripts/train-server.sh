#!/usr/bin/env bash
# Trains a profiling build of `bidscan` (scripts/pgo-build.sh, scripts/bolt-build.sh): runs BIN serve (default
# config, one worker) on 127.0.0.1:PORT, puts it under wrk with the HTTP bench mixes (benches/http/mixes.py: real
# no-bids, banners, natives, the real mix, synthetic VAST) on /decode with and without `?view=summary` for SECONDS
# each, posts the validate pairs to /validate, a few refusals and metrics scrapes, then stops it with SIGINT (a
# clean shutdown, which is when a profiling build writes its profile). Needs wrk, python3, curl.
#   scripts/train-server.sh BIN PORT SECONDS WORKDIR
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:?the binary to train} PORT=${2:?a port} SECONDS_PER_MIX=${3:?seconds per mix} WORK=${4:?a work directory}
for tool in wrk python3 curl; do
    command -v "$tool" >/dev/null || { echo "$tool not found (Debian: apt-get install -y $tool)" >&2; exit 1; }
done
MIXES_DIR="$WORK/mixes"
mkdir -p "$MIXES_DIR"
python3 "$ROOT/benches/http/mixes.py" "$MIXES_DIR" 2>/dev/null
if (: </dev/tcp/127.0.0.1/"$PORT") 2>/dev/null; then
    echo "port $PORT is already in use: the training would profile what listens there (set PORT)" >&2
    exit 1
fi
BIDSCAN__SERVER__LISTEN=127.0.0.1:$PORT BIDSCAN__SERVER__WORKER_THREADS=1 "$BIN" serve >"$WORK/serve.log" 2>&1 &
SERVER=$!
trap 'kill -INT $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && break
    kill -0 "$SERVER" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$SERVER" 2>/dev/null || { echo "$BIN serve exited:" >&2; tail -5 "$WORK/serve.log" >&2; exit 1; }
curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz"
for mix in real-nobid real-banner real-native real-mix vast; do
    for query in "?view=summary" ""; do
        MIX="$MIXES_DIR/$mix.lines" wrk -t1 -c16 -d"${SECONDS_PER_MIX}s" -s "$ROOT/benches/http/mix.lua" \
            "http://127.0.0.1:$PORT/decode$query" | tail -1 | cut -c1-200
    done
done
# /validate, the batch route, metrics and a few refusals: each path once or a few hundred times (their code is
# laid out too, but the decode path's counts dominate).
python3 - "$PORT" "$ROOT/corpus/validate-pairs" <<'PY'
import glob, http.client, os, sys
port, pairs = int(sys.argv[1]), sys.argv[2]
c = http.client.HTTPConnection("127.0.0.1", port)
def post(path, body, headers={"content-type": "application/json"}):
    c.request("POST", path, body=body, headers=headers)
    r = c.getresponse(); r.read()
    return r.status
envelopes = sorted(glob.glob(os.path.join(pairs, "*.json")))
for _ in range(4):
    for e in envelopes:
        post("/validate", open(e, "rb").read())
for bad in [b"{", b"[1]", b'{"seatbid":5}', b"<VAST/>"]:
    for _ in range(50):
        post("/decode", bad)
for _ in range(20):
    c.request("GET", "/metrics"); c.getresponse().read()
print("validate envelopes:", len(envelopes))
PY
kill -INT "$SERVER"
trap - EXIT
wait "$SERVER" || { echo "$BIN serve did not shut down cleanly (log: $WORK/serve.log)" >&2; exit 1; }
