#!/usr/bin/env bash
# Property-based API tests: schemathesis, with all its checks, against a real `bidscan serve` on 127.0.0.1,
# reading the server's own /openapi.json. Bounded: SCHEMATHESIS_EXAMPLES cases per operation and phase (default
# 40), a fixed seed, at most SCHEMATHESIS_MAX_SECS seconds (default 900). No hooks: the batch routes take
# text/plain too, which schemathesis sends as it is; scripts/schemathesis/schemathesis.toml says why strict mode's
# 422 is an accepted answer (the one exception; no 5xx is).
# Installs schemathesis (pinned, PyPI) into target/schemathesis-venv when missing.
# Env: BIDSCAN_BIN=path (default: target/debug/bidscan, built when missing), SCHEMATHESIS_PORT (default 18090).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
version=4.32.5
venv=$root/target/schemathesis-venv
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$version"; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi
"$venv/bin/schemathesis" --version

bin=${BIDSCAN_BIN:-$root/target/debug/bidscan}
[ -x "$bin" ] || cargo build --locked -p bidscan-server
port=${SCHEMATHESIS_PORT:-18090}
log=$(mktemp)
BIDSCAN__LOG__LEVEL=warn "$bin" serve --listen "127.0.0.1:$port" >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.1
done
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$log"; echo "bidscan did not start"; exit 1; }

# From target/, where schemathesis keeps its cache of failing cases (.schemathesis/).
cd "$root/target"
timeout "${SCHEMATHESIS_MAX_SECS:-900}" \
    "$venv/bin/schemathesis" --no-color --config-file "$root/scripts/schemathesis/schemathesis.toml" run "http://127.0.0.1:$port/openapi.json" \
    --checks all \
    --max-examples "${SCHEMATHESIS_EXAMPLES:-40}" \
    --seed 1 \
    --workers 1 \
    --request-timeout 10 \
    --generation-database none
