#!/usr/bin/env bash
# A profile-guided release build of `bidscan` (issue 18): the service's per-request cost on small bodies is bound by
# instruction-cache misses (BENCHMARKS.md, "the code footprint"), and PGO lays the hot code of a request out
# together. Three steps, all with rustc's stable flags and the toolchain's own `llvm-profdata`:
#   1. build an instrumented binary (`-Cprofile-generate`) into $TARGET/pgo-gen (with `--target` set to the host,
#      so that RUSTFLAGS reach the binary's crates and not the build scripts and proc-macros);
#   2. train it: `bidscan serve` (default config, one worker) under wrk with the HTTP bench mixes
#      (benches/http/mixes.py: real no-bids, banners, natives, the real mix, synthetic VAST) on /decode, and the
#      validate pairs on /validate, for TRAIN_SECONDS per mix, 127.0.0.1 only; then a clean shutdown (SIGINT),
#      which writes the profile;
#   3. merge the profile and rebuild with `-Cprofile-use` into $TARGET/pgo: the binary is
#      $TARGET/pgo/HOST/release/bidscan (HOST = `rustc -vV`'s host, e.g. x86_64-unknown-linux-gnu).
# Needs: `rustup component add llvm-tools` (llvm-profdata matching rustc's LLVM), wrk (apt-get install -y wrk),
# python3, curl. Time: two release builds of the server (~5–20 min each on 2 cores) and ~30 s of training.
#   scripts/pgo-build.sh                       # then: $TARGET/pgo/x86_64-unknown-linux-gnu/release/bidscan serve
#   TRAIN_SECONDS=5 PORT=18390 scripts/pgo-build.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
TRAIN_SECONDS=${TRAIN_SECONDS:-4}
PORT=${PORT:-18390}
PGO_DIR=${PGO_DIR:-$TARGET/pgo-data}
SYSROOT=$(rustc --print sysroot)
HOST=$(rustc -vV | sed -n 's/^host: //p')
PROFDATA=${PROFDATA:-$(find "$SYSROOT" -name llvm-profdata -type f | head -1)}
[[ -x ${PROFDATA:-} ]] || { echo "llvm-profdata not found: rustup component add llvm-tools" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk not found: apt-get install -y wrk" >&2; exit 1; }

echo "== 1. instrumented build ($TARGET/pgo-gen)"
rm -rf "$PGO_DIR"
mkdir -p "$PGO_DIR/raw"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$PGO_DIR/raw" \
    cargo build --release --locked -p bidscan-server --target "$HOST" --target-dir "$TARGET/pgo-gen"

echo "== 2. training (${TRAIN_SECONDS}s per mix on 127.0.0.1:$PORT)"
MIXES_DIR="$PGO_DIR/mixes"
mkdir -p "$MIXES_DIR"
python3 "$ROOT/benches/http/mixes.py" "$MIXES_DIR" 2>/dev/null
BIDSCAN__SERVER__LISTEN=127.0.0.1:$PORT BIDSCAN__SERVER__WORKER_THREADS=1 \
    "$TARGET/pgo-gen/$HOST/release/bidscan" serve >"$PGO_DIR/serve.log" 2>&1 &
SERVER=$!
trap 'kill -INT $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && break
    sleep 0.1
done
curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz"
for mix in real-nobid real-banner real-native real-mix vast; do
    for query in "?view=summary" ""; do
        MIX="$MIXES_DIR/$mix.lines" wrk -t1 -c16 -d"${TRAIN_SECONDS}s" -s "$ROOT/benches/http/mix.lua" \
            "http://127.0.0.1:$PORT/decode$query" | tail -1 | cut -c1-200
    done
done
# /validate, the batch route, metrics and a few refusals: each path once or a few hundred times (their code is
# laid out too, but the decode path's counts dominate).
python3 - "$PORT" "$ROOT/corpus/validate-pairs" <<'PY'
import glob, http.client, json, os, sys
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
kill -INT $SERVER
wait $SERVER || true
trap - EXIT

echo "== 3. merge and optimised build ($TARGET/pgo)"
"$PROFDATA" merge -o "$PGO_DIR/merged.profdata" "$PGO_DIR/raw"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$PGO_DIR/merged.profdata" \
    cargo build --release --locked -p bidscan-server --target "$HOST" --target-dir "$TARGET/pgo"
echo "built $TARGET/pgo/$HOST/release/bidscan"
