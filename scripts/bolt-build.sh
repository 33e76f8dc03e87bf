#!/usr/bin/env bash
# A release build of `bidscan` laid out by BOLT: on small bodies a request's cost is bound by the code it
# runs, ~1,500 instruction-cache lines (~95 KiB) spread over ~160 pages of 4 KiB, more than the 32 KiB L1i holds
# (`benches/report/cg_lines.py` measures it). LLVM's post-link optimiser BOLT, fed a profile of the service under load,
# moves the hot blocks of every function together (`-reorder-blocks=ext-tsp`, `-split-functions`: the cold blocks go
# to a separate section) and the hot functions next to each other (`-reorder-functions=cdsort`): the same
# instructions in ~30% fewer cache lines. Four steps:
#   1. `cargo rustc` relinks the release binary with `--emit-relocs` (only the final link changes: the dependencies
#      are the release build's own), copied to $BOLT_DIR/bidscan.relocs;
#   2. `llvm-bolt -instrument` makes a profiling copy of it, $BOLT_DIR/bidscan.instrumented;
#   3. scripts/train-server.sh trains that copy (wrk with the HTTP bench mixes on /decode, the validate pairs on
#      /validate, TRAIN_SECONDS per mix, 127.0.0.1 only); its clean shutdown writes $BOLT_DIR/profile.fdata;
#   4. `llvm-bolt` lays out the relinked binary by the profile: $BOLT_DIR/bidscan, the binary to ship.
# Needs: BOLT (Debian: apt-get install -y bolt-19; LLVM_BOLT=path for another), wrk, python3, curl. Time: the
# release build's final link again (minutes; the whole release build when this checkout's target has none), ~40 s
# of training, ~30 s of BOLT. It leaves target/release/bidscan as the `--emit-relocs` link (the same code, twice
# the file: `cargo build --release` links the plain one again).
#   scripts/bolt-build.sh                       # then: target/bolt/bidscan serve
#   TRAIN_SECONDS=5 PORT=18391 scripts/bolt-build.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
TRAIN_SECONDS=${TRAIN_SECONDS:-4}
PORT=${PORT:-18391}
BOLT_DIR=${BOLT_DIR:-$TARGET/bolt}
# The runtime library of `-instrument` is found relative to the llvm-bolt binary itself, so use the real path (not
# Debian's /usr/bin/llvm-bolt-19 symlink).
LLVM_BOLT=${LLVM_BOLT:-$(ls -d /usr/lib/llvm-*/bin/llvm-bolt 2>/dev/null | sort -V | tail -1)}
[[ -x ${LLVM_BOLT:-} ]] || { echo "llvm-bolt not found: apt-get install -y bolt-19 (or set LLVM_BOLT)" >&2; exit 1; }
LLVM_BOLT=$(readlink -f "$LLVM_BOLT")
for tool in wrk python3 curl; do
    command -v "$tool" >/dev/null || { echo "$tool not found (Debian: apt-get install -y $tool)" >&2; exit 1; }
done

echo "== 1. release build relinked with --emit-relocs"
cargo rustc --release --locked -p bidscan-server --bin bidscan -- -C link-arg=-Wl,--emit-relocs
mkdir -p "$BOLT_DIR"
# Only this script's own outputs are removed (BOLT_DIR may be any directory).
rm -rf "$BOLT_DIR"/{bidscan,bidscan.relocs,bidscan.instrumented,profile.fdata,instrument.log,layout.log,train}
cp "$TARGET/release/bidscan" "$BOLT_DIR/bidscan.relocs"

echo "== 2. instrumented copy ($LLVM_BOLT)"
"$LLVM_BOLT" "$BOLT_DIR/bidscan.relocs" -instrument -instrumentation-file="$BOLT_DIR/profile.fdata" \
    -o "$BOLT_DIR/bidscan.instrumented" >"$BOLT_DIR/instrument.log" 2>&1 || { cat "$BOLT_DIR/instrument.log"; exit 1; }

echo "== 3. training (${TRAIN_SECONDS}s per mix on 127.0.0.1:$PORT)"
"$ROOT/scripts/train-server.sh" "$BOLT_DIR/bidscan.instrumented" "$PORT" "$TRAIN_SECONDS" "$BOLT_DIR/train"
[[ -s $BOLT_DIR/profile.fdata ]] || { echo "no profile written ($BOLT_DIR/profile.fdata)" >&2; exit 1; }

echo "== 4. layout"
"$LLVM_BOLT" "$BOLT_DIR/bidscan.relocs" -data="$BOLT_DIR/profile.fdata" -o "$BOLT_DIR/bidscan" \
    -reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions -split-all-cold -split-eh -icf=1 \
    -use-gnu-stack -update-debug-sections -dyno-stats >"$BOLT_DIR/layout.log" 2>&1 || { cat "$BOLT_DIR/layout.log"; exit 1; }
grep -E "BOLT-INFO: (basic block reordering|splitting|.*profile)" "$BOLT_DIR/layout.log" | head -5 || true
"$BOLT_DIR/bidscan" --version
echo "built $BOLT_DIR/bidscan"
