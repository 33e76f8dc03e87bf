#!/usr/bin/env bash
# Hostile-input and slow-client tests against the real server, at full size (RELIABILITY.md §2):
# the hostile*.rs tests of bidscan-server (modules `hostile` and `hostile_slow` of its `tests` binary, and the
# `hostile_memory` binary), with 10,000 slowloris connections instead of the default 1,000 (the
# test raises server.max_connections above the count and the header-read timeout past the test, so it measures
# what each slow connection costs; the cap and the timeout have their own tests in hostile_slow.rs).
# The open-file limit is raised first (root may raise the hard limit; otherwise the test scales down to what the
# limit allows and says so).
#
#   scripts/hostile.sh            debug build
#   scripts/hostile.sh --release  release build
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -Hn 65536 2>/dev/null || true
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "open-file limit: $(ulimit -n)"
export BIDSCAN_SLOW_CLIENTS="${BIDSCAN_SLOW_CLIENTS:-10000}"
cargo test -p bidscan-server "$@" --test tests -- --nocapture --test-threads 1 hostile:: hostile_slow::
cargo test -p bidscan-server "$@" --test hostile_memory -- --nocapture --test-threads 1
