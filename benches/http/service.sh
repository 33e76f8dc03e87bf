#!/usr/bin/env bash
# The service's per-request cost on real traffic: `bidscan serve` with its default configuration (every
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
# Mixes (benches/http/mixes.py): real-nobid, real-banner, real-native, real-mix, vast (the default), and minimal
# (`{"id":"1"}`: the stack with nearly nothing to decode; MIXES=minimal). Raw wrk lines stay in $OUT.
# PORT_BASE (default 18290): the servers listen on PORT_BASE .. PORT_BASE+5; a port already in use stops the run.
# Two more servers are other builds of bidscan: `pgo`, the profile-guided build (scripts/pgo-build.sh) from PGO_BIN,
# and `plain`, the release build without BOLT (scripts/bolt-build.sh: then BIDSCAN_BIN is the BOLT-optimised binary)
# from PLAIN_BIN:
#   PGO_BIN=$CARGO_TARGET_DIR/pgo/x86_64-unknown-linux-gnu/release/bidscan SERVERS="bidscan pgo baseline" benches/http/service.sh
#   BIDSCAN_BIN=$CARGO_TARGET_DIR/bolt/bidscan PLAIN_BIN=$CARGO_TARGET_DIR/release/bidscan SERVERS="bidscan plain baseline" benches/http/service.sh
# Besides req/s, each run reads the server's CPU time (every thread of its processes, /proc/PID/task/*/schedstat:
# user and kernel time on the CPU, in ns) before and after: "CPU µs/req" is that time over the requests wrk made. It
# depends far less on what else runs on the machine than req/s does.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIDSCAN_BIN=${BIDSCAN_BIN:-$TARGET/release/bidscan}
BASELINE_BIN=${BASELINE_BIN:-$TARGET/release/baseline_server}
FLOOR_BIN=${FLOOR_BIN:-$TARGET/release/floor_server}
PGO_BIN=${PGO_BIN:-$TARGET/pgo/x86_64-unknown-linux-gnu/release/bidscan}
PLAIN_BIN=${PLAIN_BIN:-$TARGET/release/bidscan}
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
PORT_BASE=${PORT_BASE:-18290}
declare -A PORT=([bidscan]=$PORT_BASE [baseline]=$((PORT_BASE + 1)) [floor]=$((PORT_BASE + 2))
    [nginx]=$((PORT_BASE + 3)) [pgo]=$((PORT_BASE + 4)) [plain]=$((PORT_BASE + 5)))
for s in $SERVERS; do
    [[ -n ${PORT[$s]:-} ]] || { echo "unknown server '$s' in SERVERS (known: ${!PORT[*]})" >&2; exit 1; }
done
# bidscan and the baseline always run (the answers are checked on both); the floor and nginx when in SERVERS.
RUN=(bidscan baseline)
for s in floor nginx; do
    [[ " $SERVERS " == *" $s "* ]] && RUN+=("$s")
done
declare -A BUILD=([pgo]=$PGO_BIN [plain]=$PLAIN_BIN)
EXTRA=() # the other builds of bidscan in $SERVERS
for s in pgo plain; do
    [[ " $SERVERS " == *" $s "* ]] && EXTRA+=("$s")
done

NEEDED=("$BIDSCAN_BIN" "$BASELINE_BIN")
[[ " ${RUN[*]} " == *" floor "* ]] && NEEDED+=("$FLOOR_BIN")
[[ " ${RUN[*]} " == *" nginx "* ]] && NEEDED+=("$NGINX")
for s in "${EXTRA[@]}"; do NEEDED+=("${BUILD[$s]}"); done
RUN+=("${EXTRA[@]}")
# A port something else already listens on would be measured instead of our server: refuse to start.
for s in "${RUN[@]}"; do
    if (: </dev/tcp/127.0.0.1/"${PORT[$s]}") 2>/dev/null; then
        echo "port ${PORT[$s]} ($s) is already in use: stop what listens there or set PORT_BASE" >&2
        exit 1
    fi
done
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
declare -A PID_OF=([bidscan]=$!)
PIDS+=($!)
for s in "${EXTRA[@]}"; do
    BIDSCAN__SERVER__LISTEN=127.0.0.1:${PORT[$s]} BIDSCAN__SERVER__WORKER_THREADS=$WORKERS \
        "${ON_SERVER[@]}" "${BUILD[$s]}" serve >"$OUT/$s.log" 2>&1 &
    PID_OF[$s]=$!
    PIDS+=($!)
done
BASELINE_WORKERS=$WORKERS "${ON_SERVER[@]}" "$BASELINE_BIN" "127.0.0.1:${PORT[baseline]}" >"$OUT/baseline.log" 2>&1 &
PID_OF[baseline]=$!
PIDS+=($!)
if [[ " ${RUN[*]} " == *" floor "* ]]; then
    FLOOR_WORKERS=$WORKERS "${ON_SERVER[@]}" "$FLOOR_BIN" "127.0.0.1:${PORT[floor]}" >"$OUT/floor.log" 2>&1 &
    PID_OF[floor]=$!
    PIDS+=($!)
fi
start_nginx() {
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
}
[[ " ${RUN[*]} " == *" nginx "* ]] && start_nginx

wait_ready() {
    for _ in $(seq 100); do
        curl -fsS -o /dev/null "http://127.0.0.1:$1/healthz" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "server on port $1 did not come up" >&2
    exit 1
}
for s in "${RUN[@]}"; do wait_ready "${PORT[$s]}"; done
[[ " ${RUN[*]} " == *" nginx "* ]] && PID_OF[nginx]=$(cat "$OUT/nginx/nginx.pid")
for s in "${RUN[@]}"; do # each answering port must be our own process, alive
    kill -0 "${PID_OF[$s]}" 2>/dev/null || { echo "$s exited (log: $OUT/$s.log)" >&2; exit 1; }
done

# Every document of every mix must be answered 200 by both decoding servers before anything is measured.
CHECKED="${PORT[bidscan]},${PORT[baseline]}"
for s in "${EXTRA[@]}"; do CHECKED+=",${PORT[$s]}"; done
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

# cpu_ns SERVER -> the CPU time (ns) every thread of the server's processes (nginx: the master and its workers)
# has had so far
cpu_ns() {
    local pid=${PID_OF[$1]} total=0 t
    for p in $pid $(pgrep -P "$pid" || true); do
        for t in /proc/"$p"/task/*/schedstat; do
            [[ -r $t ]] && total=$((total + $(cut -d" " -f1 "$t" 2>/dev/null || echo 0)))
        done
    done
    echo "$total"
}

# run SERVER MIX ROUND -> one JSON line in $OUT/SERVER-MIX-ROUND.json (wrk's, with the server's "cpu_ns" added)
run() {
    local threads=1 before line
    [[ $WORKERS == 1 ]] || threads=$WORKERS
    before=$(cpu_ns "$1")
    line=$(MIX="$OUT/$2.lines" "${ON_LOAD[@]}" "$WRK" -t"$threads" -c"$CONNS" -d"$DURATION" \
        -s "$ROOT/benches/http/mix.lua" "http://127.0.0.1:${PORT[$1]}/decode$QUERY" | tail -1)
    echo "${line%\}},\"cpu_ns\":$(($(cpu_ns "$1") - before))}" >"$OUT/$1-$2-$3.json"
}

for mix in $MIXES; do
    for round in $(seq "$ROUNDS"); do
        for s in $SERVERS; do run "$s" "$mix" "$round"; done
    done
done

python3 - "$OUT" "$ROUNDS" "$WORKERS" "$SERVERS" $MIXES <<'PY'
import json, os, sys
out, rounds, workers, servers, mixes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(), sys.argv[5:]
ours = [s for s in ("bidscan", "pgo", "plain") if s in servers]
def med(server, mix):
    runs = [json.load(open(os.path.join(out, "%s-%s-%d.json" % (server, mix, r)))) for r in range(1, rounds + 1)]
    for r in runs:
        bad = r["status"] + r["connect"] + r["read"] + r["write"] + r["timeout"]
        if server in ours + ["baseline"] and bad:
            sys.exit("%s on %s: %d errors or non-2xx answers" % (server, mix, bad))
    by_rps = sorted(runs, key=lambda r: r["rps"])
    cpu = sorted(r["cpu_ns"] / 1000 / max(1, r["requests"]) for r in runs)
    return by_rps[len(runs) // 2], cpu[len(cpu) // 2]
head = ["mix"] + ["%s req/s" % s for s in servers] + ["%s CPU µs/req" % s for s in servers]
for s in ours:
    head += ["%s ÷ baseline" % s, "%s ÷ nginx" % s, "%s CPU ÷ baseline" % s, "p99 µs %s" % s]
head += ["p99 µs baseline"]
print("| " + " | ".join(head) + " |")
print("|---|" + "---:|" * (len(head) - 1))
for mix in mixes:
    m = {s: med(s, mix) for s in servers}
    rps = lambda s: m[s][0]["rps"]
    cells = ["%.1f k" % (rps(s) / 1000) for s in servers] + ["%.2f" % m[s][1] for s in servers]
    ratio = lambda a, b: "%.2f×" % (rps(a) / rps(b)) if b in m else "–"
    for s in ours:
        cpu = "%.2f×" % (m[s][1] / m["baseline"][1]) if "baseline" in m else "–"
        cells += [ratio(s, "baseline"), ratio(s, "nginx"), cpu, "%d" % m[s][0]["p99"]]
    cells += ["%d" % m["baseline"][0]["p99"] if "baseline" in m else "–"]
    print("| %s | %s |" % (mix, " | ".join(cells)))
PY
echo
echo "WORKERS=$WORKERS DURATION=$DURATION CONNS=$CONNS ROUNDS=$ROUNDS (median round shown); load average before: $LOAD_BEFORE, after: $(cut -d" " -f1-3 /proc/loadavg); raw: $OUT"
