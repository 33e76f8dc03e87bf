#!/usr/bin/env bash
# The service's per-request cost on real traffic (issue 18): `bidscan serve` with its default configuration (every
# default layer on, log level included) against the baseline server (benches/src/bin/baseline_server.rs: axum +
# serde_json + mimalloc) and two floors that decode nothing: floor_server (plain hyper answering a fixed 60-byte
# body) and nginx (`return 200` with a 60-byte body, Debian's nginx-light). Load from wrk (benches/http/mix.lua:
# a document drawn at random per request from the mix), closed loop, CONNS connections, DURATION per run,
# 127.0.0.1 only. The servers of one mix run back to back, ROUNDS times in turn; the table has each server's
# median round.
#
# WORKERS=1 (default): every server one worker (tokio worker thread / nginx worker process) pinned to SERVER_CPU,
# wrk one thread pinned to LOAD_CPU. WORKERS=2: two workers each and wrk two threads, nothing pinned (servers and
# client share both CPUs).
#
# Build first:
#   cargo build --release -p bidscan-server
#   cargo build --release -p bidscan-bench --features http --bin baseline_server --bin floor_server
#   apt-get install -y nginx-light wrk
# Run:
#   benches/http/service.sh                              # DURATION=5s CONNS=16 ROUNDS=3 WORKERS=1
#   WORKERS=2 MIXES="real-nobid real-mix" benches/http/service.sh
# Mixes (benches/http/mixes.py): real-nobid, real-banner, real-native, real-mix, vast. Raw wrk lines stay in $OUT.
# A fifth server, `pgo`, is bidscan's profile-guided build (scripts/pgo-build.sh) from PGO_BIN:
#   PGO_BIN=$CARGO_TARGET_DIR/pgo/x86_64-unknown-linux-gnu/release/bidscan SERVERS="bidscan pgo baseline" benches/http/service.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIDSCAN_BIN=${BIDSCAN_BIN:-$TARGET/release/bidscan}
BASELINE_BIN=${BASELINE_BIN:-$TARGET/release/baseline_server}
FLOOR_BIN=${FLOOR_BIN:-$TARGET/release/floor_server}
PGO_BIN=${PGO_BIN:-$TARGET/pgo/x86_64-unknown-linux-gnu/release/bidscan}
NGINX=${NGINX:-/usr/sbin/nginx}
WRK=${WRK:-wrk}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-16}
ROUNDS=${ROUNDS:-3}
WORKERS=${WORKERS:-1}
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
MIXES=${MIXES:-"real-nobid real-banner real-native real-mix vast"}
SERVERS=${SERVERS:-"nginx floor bidscan baseline"}
QUERY=${QUERY:-"?view=summary"}
LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)
OUT=${OUT:-$(mktemp -d /tmp/bidscan-service.XXXXXX)}
mkdir -p "$OUT"
declare -A PORT=([bidscan]=18290 [baseline]=18291 [floor]=18292 [nginx]=18293 [pgo]=18294)
WITH_PGO=0
[[ " $SERVERS " == *" pgo "* ]] && WITH_PGO=1

NEEDED=("$BIDSCAN_BIN" "$BASELINE_BIN" "$FLOOR_BIN" "$NGINX")
[[ $WITH_PGO == 1 ]] && NEEDED+=("$PGO_BIN")
for bin in "${NEEDED[@]}"; do
    [[ -x $bin ]] || { echo "missing $bin (see the build lines at the top of $0)" >&2; exit 1; }
done
command -v "$WRK" >/dev/null || { echo "wrk not found: apt-get install -y wrk" >&2; exit 1; }
python3 "$ROOT/benches/http/mixes.py" "$OUT" 2>"$OUT/mixes.txt"

if [[ $WORKERS == 1 ]]; then
    ON_SERVER=(taskset -c "$SERVER_CPU")
    ON_LOAD=(taskset -c "$LOAD_CPU")
else
    ON_SERVER=()
    ON_LOAD=()
fi

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do
        kill -INT "$pid" 2>/dev/null || true
    done
    [[ -f $OUT/nginx/nginx.pid ]] && kill -QUIT "$(cat "$OUT/nginx/nginx.pid")" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT

BIDSCAN__SERVER__LISTEN=127.0.0.1:${PORT[bidscan]} BIDSCAN__SERVER__WORKER_THREADS=$WORKERS \
    "${ON_SERVER[@]}" "$BIDSCAN_BIN" serve >"$OUT/bidscan.log" 2>&1 &
PIDS+=($!)
if [[ $WITH_PGO == 1 ]]; then
    BIDSCAN__SERVER__LISTEN=127.0.0.1:${PORT[pgo]} BIDSCAN__SERVER__WORKER_THREADS=$WORKERS \
        "${ON_SERVER[@]}" "$PGO_BIN" serve >"$OUT/pgo.log" 2>&1 &
    PIDS+=($!)
fi
BASELINE_WORKERS=$WORKERS "${ON_SERVER[@]}" "$BASELINE_BIN" "127.0.0.1:${PORT[baseline]}" >"$OUT/baseline.log" 2>&1 &
PIDS+=($!)
FLOOR_WORKERS=$WORKERS "${ON_SERVER[@]}" "$FLOOR_BIN" "127.0.0.1:${PORT[floor]}" >"$OUT/floor.log" 2>&1 &
PIDS+=($!)
mkdir -p "$OUT/nginx/logs"
cat >"$OUT/nginx/nginx.conf" <<CONF
worker_processes $WORKERS;
pid $OUT/nginx/nginx.pid;
error_log $OUT/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $OUT/nginx/body;
    proxy_temp_path $OUT/nginx/proxy;
    fastcgi_temp_path $OUT/nginx/fastcgi;
    uwsgi_temp_path $OUT/nginx/uwsgi;
    scgi_temp_path $OUT/nginx/scgi;
    server {
        listen 127.0.0.1:${PORT[nginx]};
        client_max_body_size 4m;
        location / {
            default_type application/json;
            return 200 '{"status":"nobid","summary":{"bids":0},"issues":[],"ok":"y"}';
        }
    }
}
CONF
"${ON_SERVER[@]}" "$NGINX" -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf" -e "$OUT/nginx/logs/error.log"

wait_ready() {
    for _ in $(seq 100); do
        curl -fsS -o /dev/null "http://127.0.0.1:$1/healthz" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "server on port $1 did not come up" >&2
    exit 1
}
READY=(bidscan baseline floor nginx)
[[ $WITH_PGO == 1 ]] && READY+=(pgo)
for s in "${READY[@]}"; do wait_ready "${PORT[$s]}"; done

# Every document of every mix must be answered 200 by both decoding servers before anything is measured.
CHECKED="${PORT[bidscan]},${PORT[baseline]}"
[[ $WITH_PGO == 1 ]] && CHECKED+=",${PORT[pgo]}"
python3 - "$OUT" "$CHECKED" "$QUERY" $MIXES <<'PY'
import http.client, os, sys
out, ports, query, mixes = sys.argv[1], sys.argv[2].split(","), sys.argv[3], sys.argv[4:]
docs = {line for m in mixes for line in open(os.path.join(out, m + ".lines"), "rb").read().splitlines()}
for port in ports:
    c = http.client.HTTPConnection("127.0.0.1", int(port))
    for d in docs:
        c.request("POST", "/decode" + query, body=d, headers={"content-type": "application/json"})
        r = c.getresponse()
        r.read()
        if r.status != 200:
            sys.exit("port %s answered %d on %r" % (port, r.status, d[:80]))
PY

# run SERVER MIX ROUND -> one JSON line in $OUT/SERVER-MIX-ROUND.json
run() {
    local threads=1
    [[ $WORKERS == 1 ]] || threads=$WORKERS
    MIX="$OUT/$2.lines" "${ON_LOAD[@]}" "$WRK" -t"$threads" -c"$CONNS" -d"$DURATION" \
        -s "$ROOT/benches/http/mix.lua" "http://127.0.0.1:${PORT[$1]}/decode$QUERY" | tail -1 >"$OUT/$1-$2-$3.json"
}

for mix in $MIXES; do
    for round in $(seq "$ROUNDS"); do
        for s in $SERVERS; do run "$s" "$mix" "$round"; done
    done
done

python3 - "$OUT" "$ROUNDS" "$WORKERS" "$SERVERS" $MIXES <<'PY'
import json, os, statistics, sys
out, rounds, workers, servers, mixes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(), sys.argv[5:]
def med(server, mix):
    runs = [json.load(open(os.path.join(out, "%s-%s-%d.json" % (server, mix, r)))) for r in range(1, rounds + 1)]
    for r in runs:
        bad = r["status"] + r["connect"] + r["read"] + r["write"] + r["timeout"]
        if server in ("bidscan", "baseline", "pgo") and bad:
            sys.exit("%s on %s: %d errors or non-2xx answers" % (server, mix, bad))
    runs.sort(key=lambda r: r["rps"])
    return runs[len(runs) // 2], [r["rps"] for r in runs]
print("| mix | " + " | ".join("%s req/s" % s for s in servers) +
      " | bidscan ÷ baseline | bidscan ÷ nginx | p99 µs bidscan / baseline |" +
      (" pgo ÷ baseline | pgo ÷ bidscan | pgo ÷ nginx | p99 µs pgo |" if "pgo" in servers else ""))
print("|---|" + "---:|" * (len(servers) + 3 + (4 if "pgo" in servers else 0)))
for mix in mixes:
    m = {s: med(s, mix) for s in servers}
    cells = ["%.1f k" % (m[s][0]["rps"] / 1000) for s in servers]
    ratio = lambda a, b: "%.2f×" % (m[a][0]["rps"] / m[b][0]["rps"]) if a in m and b in m else "–"
    p99 = "%d / %d" % (m["bidscan"][0]["p99"], m["baseline"][0]["p99"]) if "bidscan" in m and "baseline" in m else "–"
    extra = ""
    if "pgo" in m:
        extra = " %s | %s | %s | %d |" % (ratio("pgo", "baseline"), ratio("pgo", "bidscan"), ratio("pgo", "nginx"), m["pgo"][0]["p99"])
    print("| %s | %s | %s | %s | %s |%s" % (mix, " | ".join(cells), ratio("bidscan", "baseline"), ratio("bidscan", "nginx"), p99, extra))
PY
echo
echo "WORKERS=$WORKERS DURATION=$DURATION CONNS=$CONNS ROUNDS=$ROUNDS (median round shown); load average before: $LOAD_BEFORE, after: $(cut -d" " -f1-3 /proc/loadavg); raw: $OUT"
