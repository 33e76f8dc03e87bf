#!/usr/bin/env bash
# Fuzzing on STABLE Rust with libFuzzer (no nightly, no sanitizer): builds fuzz/ with the sanitizer-coverage
# flags cargo-fuzz passes for `-s none`, then runs libFuzzer. See RELIABILITY.md.
#
#   scripts/fuzz.sh build                      build the nine targets (release, debug assertions, overflow checks)
#   scripts/fuzz.sh run TARGET SECONDS [ARGS]  fuzz TARGET (reader | model | differential | markup | skip | multipart | protobuf |
#                                             protobuf_request | encode) for SECONDS
#   scripts/fuzz.sh replay [TARGET...]         run every input of fuzz/regressions/TARGET once (exit 1 on a crash)
#   scripts/fuzz.sh all SECONDS                replay, then fuzz each target for SECONDS
#
# Environment: FUZZ_TARGET_DIR (default fuzz/target), FUZZ_MAX_LEN (default 16384 bytes), FUZZ_RSS_MB (2048).
# Working corpora go to fuzz/corpus/TARGET (seeded from corpus/ and fuzz/seeds/; markup also from corpus/vast-samples/; protobuf from corpus/real-fixtures-protobuf/ only,
# protobuf_request from corpus/validate-pairs-protobuf/ only, encode from the bid responses of corpus/ and fuzz/seeds/ and
# corpus/protobuf-features/'s JSON),
# crashes to fuzz/artifacts/TARGET/.
# Every crash found must become a file in fuzz/regressions/TARGET/ (and so a case of the cargo test suite:
# crates/bidscan-json/tests/fuzz_regressions.rs, crates/bidscan-openrtb/tests/fuzz_regressions.rs).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
fuzz="$repo/fuzz"
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$fuzz/target}"
targets=(reader model differential markup skip multipart protobuf protobuf_request encode)
max_len="${FUZZ_MAX_LEN:-16384}"
rss_mb="${FUZZ_RSS_MB:-2048}"

# What `cargo fuzz build -s none` passes (cargo-fuzz 0.12/0.13), all stable rustc options.
flags=(
  -Cpasses=sancov-module
  -Cllvm-args=-sanitizer-coverage-level=4
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters
  -Cllvm-args=-sanitizer-coverage-pc-table
  -Cllvm-args=-sanitizer-coverage-trace-compares
  -Cforce-frame-pointers
  --cfg fuzzing
)

# An explicit --target keeps RUSTFLAGS off build scripts and proc macros (they must not be instrumented).
host="$(rustc -vV | sed -n 's/^host: //p')"
bin() { echo "$CARGO_TARGET_DIR/$host/release/$1"; }

build() {
  (cd "$fuzz" && RUSTFLAGS="${flags[*]}" cargo build --release --locked --bins --target "$host")
}

seed() {
  local t="$1" dir="$fuzz/corpus/$1"
  mkdir -p "$dir" "$fuzz/artifacts/$t"
  if [ -z "$(ls -A "$dir")" ] && [ "$t" = protobuf ]; then
    cp "$repo"/corpus/real-fixtures-protobuf/*.pb "$dir"/  # the real fixtures' protobuf twins
  elif [ -z "$(ls -A "$dir")" ] && [ "$t" = protobuf_request ]; then
    cp "$repo"/corpus/validate-pairs-protobuf/*.pb "$dir"/  # the validate pairs' request twins
  elif [ -z "$(ls -A "$dir")" ] && [ "$t" = encode ]; then
    cp "$repo"/corpus/bid-responses/*.json "$dir"/
    cp "$repo"/corpus/real-fixtures/*.json "$dir"/
    cp "$repo"/corpus/protobuf-features/*.json "$dir"/  # declared and raw-form ext members, a native adm
    cp "$fuzz"/seeds/* "$dir"/
  elif [ -z "$(ls -A "$dir")" ]; then
    cp "$repo"/corpus/bid-responses/*.json "$dir"/
    cp "$repo"/corpus/jsontestsuite/*.json "$dir"/
    cp "$repo"/corpus/real-fixtures/*.json "$dir"/  # real bodies, 97% pretty-printed (whitespace runs)
    cp "$fuzz"/seeds/* "$dir"/
    if [ "$t" = multipart ]; then
      cp "$fuzz"/seeds-multipart/* "$dir"/
    fi
    if [ "$t" = markup ]; then
      find "$repo"/corpus/vast-samples -name '*.xml' -exec cp {} "$dir"/ \;
    fi
  fi
}

run() {
  local t="$1" secs="$2"; shift 2
  seed "$t"
  "$(bin "$t")" "$fuzz/corpus/$t" \
    $(case "$t" in protobuf*) ;; markup | encode) echo "-dict=$fuzz/$t.dict" ;; *) echo "-dict=$fuzz/json.dict" ;; esac) -max_len="$max_len" -rss_limit_mb="$rss_mb" -timeout=10 \
    -max_total_time="$secs" -print_final_stats=1 \
    -artifact_prefix="$fuzz/artifacts/$t/" "$@"
}

replay() {
  local status=0 t files
  for t in "$@"; do
    mapfile -t files < <(find "$fuzz/regressions/$t" -type f ! -name '*.md' 2>/dev/null | sort)
    if [ "${#files[@]}" -eq 0 ]; then
      echo "replay $t: no regression inputs"
      continue
    fi
    if "$(bin "$t")" -rss_limit_mb="$rss_mb" -timeout=10 "${files[@]}" >"$CARGO_TARGET_DIR/replay-$t.log" 2>&1; then
      echo "replay $t: ${#files[@]} inputs ok"
    else
      echo "replay $t: FAILED (see $CARGO_TARGET_DIR/replay-$t.log)"; tail -30 "$CARGO_TARGET_DIR/replay-$t.log"; status=1
    fi
  done
  return "$status"
}

case "${1:-}" in
  build) build ;;
  run) build; run "${2:?target}" "${3:?seconds}" "${@:4}" ;;
  replay) build; shift; if [ "$#" -eq 0 ]; then set -- "${targets[@]}"; fi; replay "$@" ;;
  all)
    secs="${2:?seconds per target}"
    build
    replay "${targets[@]}"
    for t in "${targets[@]}"; do run "$t" "$secs"; done
    ;;
  *) sed -n '2,16p' "$0"; exit 2 ;;
esac
