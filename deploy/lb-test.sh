#!/usr/bin/env bash
# Proves the load-balancer topology of docker-compose.yml without Docker: three `bidscan serve` processes on
# loopback, nginx from Debian's packages in front of them running deploy/nginx/upstream.conf and
# deploy/nginx/bidscan.conf (the files the compose nginx includes) with only the addresses replaced, a bounded load
# through nginx (deploy/lb-load.py) during which one replica gets SIGTERM. Fails unless (a) every replica served
# requests, (b) no request failed, (c) the stopped replica's /readyz went 503 before it exited (and it exited 0).
#
# Usage: deploy/lb-test.sh            (builds `bidscan` with cargo unless BIDSCAN_BIN names a binary)
# Env:   BIDSCAN_BIN=path  LB_DURATION=12  LB_KILL_AT=4  LB_CONCURRENCY=8  LB_BASE_PORT=18080  LB_KEEP=1 (keep logs)
# Installs nginx with apt-get when it is missing (needs root). Takes well under 2 minutes once bidscan is built.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
duration=${LB_DURATION:-12}
kill_at=${LB_KILL_AT:-4}
concurrency=${LB_CONCURRENCY:-8}
base_port=${LB_BASE_PORT:-18080}
lb_port=$base_port
ports=($((base_port + 1)) $((base_port + 2)) $((base_port + 3)))
names=(bidscan-1 bidscan-2 bidscan-3)
victim=1 # index into names/ports/pids: bidscan-2 is stopped mid-run
drain_secs=5 # [server] drain_timeout_secs: SIGTERM to exit, at most
grace_secs=1 # [server] drain_grace_secs: /readyz 503 while still accepting, before the listener closes

work=$(mktemp -d /tmp/bidscan-lb.XXXXXX)
chmod 755 "$work" # nginx workers drop root privileges and must reach their temp dirs
pids=()
nginx_pid=

log() { printf '== %s\n' "$*"; }

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
    local rc=$? p
    for p in "${pids[@]}" $nginx_pid; do kill -TERM "$p" 2>/dev/null || true; done
    for _ in $(seq 50); do
        local alive=0
        for p in "${pids[@]}" $nginx_pid; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ "$alive" = 0 ] && break
        sleep 0.1
    done
    for p in "${pids[@]}" $nginx_pid; do kill -KILL "$p" 2>/dev/null || true; done
    if [ "$rc" != 0 ]; then
        for f in "$work"/bidscan-*.log "$work"/nginx/logs/error.log; do
            [ -s "$f" ] && { echo "--- last lines of $f"; tail -n 6 "$f" | cut -c1-400; }
        done
    fi
    if [ "${LB_KEEP:-}" = 1 ]; then echo "logs kept in $work"; else rm -rf "$work"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- nginx from Debian's packages -------------------------------------------------------------------------------
nginx_bin=$(command -v nginx || true)
[ -z "$nginx_bin" ] && [ -x /usr/sbin/nginx ] && nginx_bin=/usr/sbin/nginx
if [ -z "$nginx_bin" ]; then
    log "installing nginx (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    pkg=nginx-light
    apt-cache policy nginx-light 2>/dev/null | grep -q 'Candidate: [0-9]' || pkg=nginx
    # Keep the package's postinst from starting a system nginx on port 80 (no init system here anyway).
    made_policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made_policy=1
    fi
    apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null
    [ -n "$made_policy" ] && rm -f /usr/sbin/policy-rc.d
    nginx_bin=/usr/sbin/nginx
fi
log "nginx: $("$nginx_bin" -v 2>&1)"

# --- bidscan ----------------------------------------------------------------------------------------------------
bin=${BIDSCAN_BIN:-}
if [ -z "$bin" ]; then
    log "building bidscan (cargo build --release -p bidscan-server)"
    (cd "$root" && cargo build --release --locked -p bidscan-server)
    target_dir=$(cd "$root" && cargo metadata --format-version 1 --no-deps |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
    bin=$target_dir/release/bidscan
fi
[ -x "$bin" ] || { echo "no bidscan binary at $bin" >&2; exit 1; }

for i in 0 1 2; do
    BIDSCAN__SERVER__LISTEN=127.0.0.1:${ports[$i]} \
        BIDSCAN__SERVER__DRAIN_TIMEOUT_SECS=$drain_secs \
        BIDSCAN__SERVER__DRAIN_GRACE_SECS=$grace_secs \
        BIDSCAN__LOG__FORMAT=json \
        BIDSCAN__SERVER__BATCH_ANSWER_AFTER_BODY=true \
        "$bin" serve >"$work/${names[$i]}.log" 2>&1 &
    pids[i]=$!
done

wait_for() { # URL SECONDS: until URL answers 200
    local url=$1 deadline=$((SECONDS + $2))
    until curl -fsS -o /dev/null --max-time 1 "$url" 2>/dev/null; do
        [ $SECONDS -ge $deadline ] && { echo "no 200 from $url after $2 s" >&2; return 1; }
        sleep 0.1
    done
}
for i in 0 1 2; do wait_for "http://127.0.0.1:${ports[$i]}/readyz" 20; done
log "replicas ready: ${names[*]} on 127.0.0.1:${ports[*]} (pids ${pids[*]})"

# --- nginx with the shipped upstream and server blocks ----------------------------------------------------------
ngx=$work/nginx
mkdir -p "$ngx/conf/bidscan" "$ngx/logs" "$ngx/tmp"/{body,proxy,fastcgi,uwsgi,scgi}
chmod 777 "$ngx/tmp"/*
to_local=() to_compose=()
for i in 0 1 2; do
    to_local+=(-e "s/server bidscan-$((i + 1)):8080 /server 127.0.0.1:${ports[$i]} /")
    to_compose+=(-e "s/server 127.0.0.1:${ports[$i]} /server bidscan-$((i + 1)):8080 /")
done
sed "${to_local[@]}" "$root/deploy/nginx/upstream.conf" >"$ngx/conf/bidscan/upstream.conf"
sed -E 's/^( *)listen 8080;/\1listen 127.0.0.1:'"$lb_port"';/' \
    "$root/deploy/nginx/bidscan.conf" >"$ngx/conf/bidscan/bidscan.conf"
# The substitutions must have hit exactly the three servers and the one listen line, nothing else.
if ! sed "${to_compose[@]}" "$ngx/conf/bidscan/upstream.conf" | cmp -s - "$root/deploy/nginx/upstream.conf" ||
    [ "$(grep -c "^ *server 127\.0\.0\.1:" "$ngx/conf/bidscan/upstream.conf")" != 3 ] ||
    [ "$(grep -c "^ *listen 127\.0\.0\.1:$lb_port;" "$ngx/conf/bidscan/bidscan.conf")" != 1 ]; then
    echo "deploy/nginx/*.conf no longer has the three 'server bidscan-N:8080 ' lines and one 'listen 8080;'" >&2
    exit 1
fi
# Process-level wrapper, the counterpart of deploy/nginx.conf: own pid, logs and temp dirs under $work.
cat >"$ngx/conf/nginx.conf" <<EOF
worker_processes 2;
pid $ngx/nginx.pid;
error_log $ngx/logs/error.log warn;
events { worker_connections 1024; }
http {
    default_type application/octet-stream;
    client_body_temp_path $ngx/tmp/body;
    proxy_temp_path $ngx/tmp/proxy;
    fastcgi_temp_path $ngx/tmp/fastcgi;
    uwsgi_temp_path $ngx/tmp/uwsgi;
    scgi_temp_path $ngx/tmp/scgi;
    log_format lbtest '\$status \$request_method \$uri upstream="\$upstream_addr" upstream_status="\$upstream_status"';
    access_log $ngx/logs/access.log lbtest;
    include bidscan/upstream.conf;
    include bidscan/bidscan.conf;
}
EOF
"$nginx_bin" -t -q -p "$ngx/" -c "$ngx/conf/nginx.conf" -e stderr
"$nginx_bin" -p "$ngx/" -c "$ngx/conf/nginx.conf" -e stderr -g 'daemon off;' 2>>"$ngx/logs/error.log" &
nginx_pid=$!
wait_for "http://127.0.0.1:$lb_port/nginx-health" 10
log "nginx on 127.0.0.1:$lb_port (pid $nginx_pid), upstream from deploy/nginx/upstream.conf"

# --- load, SIGTERM to one replica, checks -----------------------------------------------------------------------
replica_args=()
for i in 0 1 2; do replica_args+=(--replica "${names[$i]}=http://127.0.0.1:${ports[$i]}"); done
status=0
python3 "$root/deploy/lb-load.py" --lb "http://127.0.0.1:$lb_port" "${replica_args[@]}" \
    --docs "$root/corpus/bid-responses" --duration "$duration" --concurrency "$concurrency" \
    --kill-name "${names[$victim]}" --kill-pid "${pids[$victim]}" --kill-at "$kill_at" || status=1

# The stopped replica must have exited by itself, cleanly, within its drain deadline.
victim_pid=${pids[$victim]}
for _ in $(seq $((drain_secs * 10 + 20))); do kill -0 "$victim_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$victim_pid" 2>/dev/null; then
    echo "FAIL ${names[$victim]} still running $((drain_secs + 2)) s after the load ended" >&2
    status=1
else
    victim_rc=0
    wait "$victim_pid" || victim_rc=$?
    if [ "$victim_rc" = 0 ]; then echo "PASS ${names[$victim]} exited 0 after SIGTERM"
    else echo "FAIL ${names[$victim]} exited with status $victim_rc after SIGTERM"; status=1; fi
fi
unset "pids[$victim]"

# `bidscan health` is the container's HEALTHCHECK (distroless has no curl): 0 for a live replica, 1 for a gone one.
health_rc=0
"$bin" health --url "http://127.0.0.1:${ports[0]}/healthz" >/dev/null 2>"$work/health.err" || health_rc=$?
gone_rc=0
"$bin" health --url "http://127.0.0.1:${ports[$victim]}/healthz" >/dev/null 2>>"$work/health.err" || gone_rc=$?
if [ $health_rc = 0 ] && [ $gone_rc = 1 ]; then
    echo "PASS bidscan health: exit 0 for ${names[0]}, 1 for the stopped ${names[$victim]}"
else
    echo "FAIL bidscan health: exit $health_rc for ${names[0]} (wants 0), $gone_rc for the stopped" \
        "${names[$victim]} (wants 1): $(head -c 300 "$work/health.err")"
    status=1
fi

# A batch of several MB through nginx, both batch routes: every line answered (nginx stops
# forwarding a body once the answer has begun, so a streamed batch could lose its end), and the client's X-Request-Id kept.
batch=$work/batch.ndjson
for _ in $(seq 8); do for f in "$root"/corpus/bid-responses/*.json; do tr -d '\n' <"$f"; echo; done; done >"$batch"
lines=$(wc -l <"$batch")
answered=$(curl -sS --max-time 60 -H 'x-request-id: lb-test-batch' --data-binary @"$batch" \
    -D "$work/batch.head" "http://127.0.0.1:$lb_port/decode/batch" | grep -c '"status"' || true)
if [ "$answered" = "$lines" ] && grep -qi '^x-request-id: lb-test-batch' "$work/batch.head"; then
    echo "PASS /decode/batch through nginx: $lines lines ($(wc -c <"$batch") bytes), $answered answered, request id kept"
else
    echo "FAIL /decode/batch through nginx: $lines lines, $answered answered; head: $(head -c 300 "$work/batch.head")"
    status=1
fi
vbatch=$work/vbatch.ndjson
python3 - "$root/corpus/validate-pairs" >"$vbatch" <<'PY'
import json, pathlib, sys
pairs = [json.dumps(json.loads(p.read_bytes()), separators=(",", ":"))
         for p in sorted(pathlib.Path(sys.argv[1]).glob("*.json"))]
for _ in range(20):
    print("\n".join(pairs))
PY
vlines=$(wc -l <"$vbatch")
if [ "$vlines" -gt 0 ]; then
    vanswered=$(curl -sS --max-time 60 --data-binary @"$vbatch" "http://127.0.0.1:$lb_port/validate/batch" | wc -l)
    if [ "$vanswered" = "$vlines" ]; then
        echo "PASS /validate/batch through nginx: $vlines lines ($(wc -c <"$vbatch") bytes), all answered"
    else
        echo "FAIL /validate/batch through nginx: $vlines lines, $vanswered answered"
        status=1
    fi
fi

# nginx's view: which replica answered each request, and how many were retried on another one.
access=$ngx/logs/access.log
echo "nginx access log: $(grep -c ' /decode ' "$access") POST /decode," \
    "$(grep ' /decode ' "$access" | grep -c '^200 ') answered 200," \
    "$(grep ' /decode ' "$access" | grep -c 'upstream="[^"]*, ') retried on another replica"
for i in 0 1 2; do
    n=$(grep ' /decode ' "$access" | grep -o 'upstream="[^"]*"' | grep -o "127.0.0.1:${ports[$i]}" | wc -l || true)
    echo "  ${names[$i]} (127.0.0.1:${ports[$i]}): $n attempts"
done

if [ $status = 0 ]; then log "lb-test: all checks passed"; else log "lb-test: FAILED"; fi
exit $status
