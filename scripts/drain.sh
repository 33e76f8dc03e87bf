#!/usr/bin/env bash
# Graceful drain under load (RELIABILITY.md §3): the release `bidscan` binary, BIDSCAN_DRAIN_CLIENTS concurrent
# clients (default 64) that ignore readiness, SIGTERM after 2 s of load. Prints when readiness turned 503, when the
# listener closed, how many requests were in flight, and fails on any accepted request that was not answered 200.
set -euo pipefail
cd "$(dirname "$0")/.."
export BIDSCAN_DRAIN_CLIENTS="${BIDSCAN_DRAIN_CLIENTS:-64}"
cargo test -p bidscan-server --release --test tests -- --nocapture drain::
