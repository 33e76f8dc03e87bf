#!/usr/bin/env bash
# A profile-guided release build of `bidscan`: the service's per-request cost on small bodies is bound by
# instruction-cache misses (`benches/report/cg_lines.py`), and PGO lays the hot code of a request out
# together. Three steps, all with rustc's stable flags and the toolchain's own `llvm-profdata`:
#   1. build an instrumented binary (`-Cprofile-generate`) into $TARGET/pgo-gen (with `--target` set to the host,
#      so that RUSTFLAGS reach the binary's crates and not the build scripts and proc-macros);
#   2. train it with scripts/train-server.sh (wrk with the HTTP bench mixes on /decode, the validate pairs on
#      /validate, TRAIN_SECONDS per mix, 127.0.0.1 only; then a clean shutdown, which writes the profile);
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

echo "== 1. instrumented build ($TARGET/pgo-gen)"
rm -rf "$PGO_DIR"
mkdir -p "$PGO_DIR/raw"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$PGO_DIR/raw" \
    cargo build --release --locked -p bidscan-server --target "$HOST" --target-dir "$TARGET/pgo-gen"

echo "== 2. training (${TRAIN_SECONDS}s per mix on 127.0.0.1:$PORT)"
"$ROOT/scripts/train-server.sh" "$TARGET/pgo-gen/$HOST/release/bidscan" "$PORT" "$TRAIN_SECONDS" "$PGO_DIR"

echo "== 3. merge and optimised build ($TARGET/pgo)"
"$PROFDATA" merge -o "$PGO_DIR/merged.profdata" "$PGO_DIR/raw"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$PGO_DIR/merged.profdata" \
    cargo build --release --locked -p bidscan-server --target "$HOST" --target-dir "$TARGET/pgo"
echo "built $TARGET/pgo/$HOST/release/bidscan"
