#!/usr/bin/env bash
# Reload under load: wrk POSTs /validate envelopes to a real `bidscan serve --config FILE` on 127.0.0.1 for
# RELOAD_SECONDS (default 8) while the script rewrites FILE and sends SIGHUP RELOADS times (default 6), the policy
# going back and forth (floor enforce / skip), then once more to floor = "warn". Passes when wrk saw no socket
# error and no non-2xx answer, every reload was counted ok (bidscan_config_reloads_total), and the last policy is
# in force (the bid below its floor accepted with a below_floor warning). Bounded: about RELOAD_SECONDS + 5 s.
# Installs wrk (Debian package) when missing. Run by .ci/run after the tests.
# Env: BIDSCAN_BIN=path (default: target/debug/bidscan, built when missing), RELOAD_PORT (default 18091).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends wrk >/dev/null; }
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends curl >/dev/null; }
bin=${BIDSCAN_BIN:-$root/target/debug/bidscan}
[ -x "$bin" ] || cargo build --locked -p bidscan-server
port=${RELOAD_PORT:-18091}
seconds=${RELOAD_SECONDS:-8}
reloads=${RELOADS:-6}
base="http://127.0.0.1:$port"

dir=$(mktemp -d)
conf=$dir/bidscan.toml
policy() { printf '[log]\nlevel = "warn,bidscan_server::reload=info,bidscan_server::server=info"\n[validate]\nfloor = "%s"\n' "$1" >"$conf"; }
policy enforce
# One banner imp with a floor of 1 USD, one bid of 0.5 USD.
body='{"request":{"id":"r1","imp":[{"id":"1","bidfloor":1.0,"banner":{"format":[{"w":300,"h":250}]}}]},"response":{"id":"r1","cur":"USD","seatbid":[{"seat":"s1","bid":[{"id":"b","impid":"1","price":0.5,"crid":"c","mtype":1,"w":300,"h":250,"adm":"<img src=\"https://x.example/a.png\">"}]}]}}'
printf '%s' "$body" >"$dir/body.json"
cat >"$dir/post.lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$dir/body.json", "rb")
wrk.body = f:read("*a")
f:close()
EOF

"$bin" serve --config "$conf" --listen "127.0.0.1:$port" >"$dir/server.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 1 100); do
    curl -sf "$base/healthz" >/dev/null && break
    sleep 0.1
done
curl -sf "$base/healthz" >/dev/null || { cat "$dir/server.log"; echo "bidscan did not start"; exit 1; }

status_of_bid() { curl -sf -H 'content-type: application/json' --data-binary @"$dir/body.json" "$base/validate" |
    python3 -c 'import json,sys; v=json.load(sys.stdin); b=v["summary"]["bids"][0]; print(b["status"], ",".join(i["code"] for i in v["issues"]))'; }
reloads_ok() { curl -sf "$base/metrics" | awk '/^bidscan_config_reloads_total\{result="ok"\}/ {print $2}'; }
[ "$(status_of_bid)" = "rejected below_floor" ] || { echo "unexpected start policy: $(status_of_bid)"; exit 1; }

wrk -t2 -c16 -d"${seconds}s" --timeout 5s -s "$dir/post.lua" "$base/validate" >"$dir/wrk.out" 2>&1 &
wrk_pid=$!
sleep 1
gap=$(python3 -c "print(max(0.1, ($seconds - 2) / $reloads))")
for i in $(seq 1 "$reloads"); do
    if [ $((i % 2)) -eq 1 ]; then policy skip; else policy enforce; fi
    kill -HUP "$pid"
    sleep "$gap"
done
wait "$wrk_pid"
policy warn
kill -HUP "$pid"
expected=$((reloads + 1))
for _ in $(seq 1 50); do
    [ "$(reloads_ok)" = "$expected" ] && break
    sleep 0.1
done

cat "$dir/wrk.out"
requests=$(awk '/requests in/ {print $1}' "$dir/wrk.out")
socket_errors=$(awk '/Socket errors:/ {n=0; for (i=3; i<=NF; i++) if ($i ~ /^[0-9]+,?$/) n+=$i; print n}' "$dir/wrk.out")
non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$dir/wrk.out")
final=$(status_of_bid)
ok=$(reloads_ok)
echo "reload-under-load: ${requests:-0} requests in ${seconds}s, ${socket_errors:-0} socket errors, ${non2xx:-0} non-2xx, $ok of $expected reloads ok, last policy: $final"
fail=0
[ -n "$requests" ] && [ "$requests" -gt 0 ] || { echo "FAIL: wrk made no request"; fail=1; }
[ "${socket_errors:-0}" -eq 0 ] || { echo "FAIL: socket errors"; fail=1; }
[ "${non2xx:-0}" -eq 0 ] || { echo "FAIL: non-2xx answers"; fail=1; }
[ "$ok" = "$expected" ] || { echo "FAIL: reloads counted ok: $ok, expected $expected"; fail=1; }
[ "$final" = "accepted below_floor" ] || { echo "FAIL: the last policy (floor = warn) is not in force"; fail=1; }
if [ "$fail" -ne 0 ]; then
    tail -n 40 "$dir/server.log"
    exit 1
fi
