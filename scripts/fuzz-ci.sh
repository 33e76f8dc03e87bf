#!/usr/bin/env bash
# The short fuzz run for CI (stable Rust, about 5 minutes with the build): replays every input of
# fuzz/regressions/, then fuzzes each of the nine targets (reader, model, differential, markup, skip, multipart,
# protobuf, protobuf_request, encode) for FUZZ_SECONDS (default 31: 279 s of fuzzing in all, as eight targets of 35 s were).
# Exits non-zero on any crash; the crashing input is in fuzz/artifacts/TARGET/ (turn it into a regression:
# see RELIABILITY.md).
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/fuzz.sh all "${FUZZ_SECONDS:-31}"
