#!/usr/bin/env bash
# Instructions per decode of ONE corpus document by one decoder: (Ir at 2N decodes - Ir at N) / N with the
# one_doc binary, which cancels start-up and corpus loading. glibc's memcpy is kept on its vector loop, as in
# callgrind.sh. The callgrind output of the 2N run stays in $OUT for callgrind_annotate.
#
#   cargo build --release -p bidscan-bench --bin one_doc
#   benches/report/callgrind_doc.sh bidscan nobid_nbr [N]     # N defaults to 2000
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/one_doc}
DECODER=$1 DOC=$2 N=${3:-2000}
TAG=$(basename "$(dirname "$DOC")")_$(basename "$DOC" .json) # a file path or a corpus stem
OUT=${OUT:-$(mktemp -d /tmp/bidscan-callgrind-doc.XXXXXX)}
mkdir -p "$OUT"
ir() { # DECODES -> total Ir
    GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=1000000000:glibc.cpu.x86_rep_stosb_threshold=1000000000 \
        valgrind --tool=callgrind --callgrind-out-file="$OUT/$DECODER-$TAG-$1.out" "$BIN" "$DECODER" "$DOC" "$1" \
        >/dev/null 2>"$OUT/$DECODER-$TAG-$1.log"
    grep -E '^summary:|^totals:' "$OUT/$DECODER-$TAG-$1.out" | head -1 | awk '{print $2}'
}
a=$(ir "$N")
b=$(ir $((2 * N)))
echo "$DECODER $DOC: $(((b - a) / N)) instructions per decode (callgrind files: $OUT)"
