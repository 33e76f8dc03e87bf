#!/usr/bin/env bash
# Callgrind instruction counts per whole-corpus pass (or per pass over one FAMILY) for each decoder:
# (Ir at 11 passes - Ir at 1 pass) / 10, which cancels start-up and corpus loading. Repeatable where timing on a
# shared machine is not. Prints a markdown table; callgrind outputs stay in $OUT for callgrind_annotate.
#
# glibc's memcpy switches to `rep movsb` above 2 KiB, and callgrind counts each byte `rep movsb` moves as one
# instruction, which would charge every body copy and every owned string ~1 instruction per byte. GLIBC_TUNABLES
# below keeps glibc on its vector loop (what it runs on CPUs without fast `rep movsb`), so counts reflect work.
#
#   cargo build --release -p bidscan-bench --bin corpus_loop
#   benches/report/callgrind.sh [FAMILY]        # default: corpus
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/corpus_loop}
FAMILY=${1:-corpus}
OUT=${OUT:-$(mktemp -d /tmp/bidscan-callgrind.XXXXXX)}
mkdir -p "$OUT"
DECODERS=${DECODERS:-"memcpy bidscan bidscan-mirror serde_json sonic-rs simd-json jiter"}
ir() { # DECODER PASSES -> total Ir
    GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=1000000000:glibc.cpu.x86_rep_stosb_threshold=1000000000 \
        valgrind --tool=callgrind --callgrind-out-file="$OUT/$1-$2.out" "$BIN" "$1" "$2" "$FAMILY" >/dev/null 2>"$OUT/$1-$2.log"
    grep -E '^summary:|^totals:' "$OUT/$1-$2.out" | head -1 | awk '{print $2}'
}
declare -A PER
for d in $DECODERS; do
    one=$(ir "$d" 1)
    eleven=$(ir "$d" 11)
    PER[$d]=$(( (eleven - one) / 10 ))
done
best=""
for d in serde_json sonic-rs simd-json jiter; do
    [[ -n ${PER[$d]:-} ]] || continue
    if [[ -z $best || ${PER[$d]} -lt ${PER[$best]} ]]; then best=$d; fi
done
echo "| decoder | instructions per $FAMILY pass | vs bidscan |"
echo "|---|---:|---:|"
for d in $DECODERS; do
    ratio=$(python3 -c "print('%.2f×' % (${PER[$d]} / ${PER[bidscan]}))")
    echo "| $d | ${PER[$d]} | $ratio |"
done
[[ -n $best ]] && python3 -c "print('\nfewest-instruction peer: $best; bidscan executes %.2f× fewer instructions' % (${PER[$best]} / ${PER[bidscan]}))"
echo "(raw callgrind files: $OUT)"
