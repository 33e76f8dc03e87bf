#!/usr/bin/env bash
# The short fuzz run for CI (stable Rust, about 3 minutes with the build): replays every input of
# fuzz/regressions/, then fuzzes each target (reader, model, differential, markup) for FUZZ_SECONDS (default 40).
# Exits non-zero on any crash; the crashing input is in fuzz/artifacts/TARGET/ (turn it into a regression:
# see RELIABILITY.md).
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/fuzz.sh all "${FUZZ_SECONDS:-40}"
