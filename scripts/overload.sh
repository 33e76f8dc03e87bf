#!/usr/bin/env bash
# Overload figures (RELIABILITY.md §3): the release `bidscan` binary with a small concurrency limit
# (BIDSCAN_OVERLOAD_PERMITS, default 4) and one worker thread; measures capacity on the corpus mix, offers twice
# it open-loop for BIDSCAN_OVERLOAD_SECONDS (default 15), then half of it to show recovery. Prints the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test -p bidscan-server --release --test overload -- --ignored --nocapture overload_figures
