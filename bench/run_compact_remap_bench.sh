#!/usr/bin/env bash
# Compaction of an indexed table (the index remap included) and of the same table without
# indexes, the reference (lance 12 via @lancedb/lancedb in node) and ours side by side, with
# ratios (bench/compact_remap_peer.mjs says what is timed).
#
#   bench/run_compact_remap_bench.sh [--rows 1000000] [--work DIR] [--build DIR] [--reps 3]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS=1000000
WORK=/tmp/lance-compact-remap-bench
BUILD="$REPO/build"
REPS=3
source "$REPO/bench/lib/peer_data.sh"
parse_options "--rows=ROWS --work=WORK --build=BUILD --reps=REPS" "$@"

need_node_modules
need_exe "$BUILD/lance" "build target lance_cli"
uptime
NODE_PATH="$NODE_MODULES" LANCEDB_LOG=error node "$REPO/bench/compact_remap_peer.mjs" \
  --dir "$WORK/rows-$ROWS" --lance "$BUILD/lance" --rows "$ROWS" --reps "$REPS"
uptime
