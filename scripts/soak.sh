#!/usr/bin/env bash
# Soak (RELIABILITY.md §4): 100,000 mixed requests (BIDSCAN_SOAK_REQUESTS) against the release `bidscan` binary,
# 8 concurrent clients; samples /metrics and /proc every BIDSCAN_SOAK_EVERY requests (default 5,000) and prints the
# curve of RSS, bidscan_buffer_retained_bytes and the pool counters. Fails if RSS or retained bytes grow by more
# than 8 MiB after the first 20% of requests.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test -p bidscan-server --release --test tests -- --ignored --nocapture soak::soak_100k
