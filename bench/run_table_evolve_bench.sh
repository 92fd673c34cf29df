#!/usr/bin/env bash
# Merge-insert (10k rows: half updates, half new), update of 1% of the rows, a computed column
# and compaction on an N-row table, reference (lance 12 via @lancedb/lancedb in node) and ours
# (the lance CLI) side by side on copies of the same table, with ratios.
#
#   bench/run_table_evolve_bench.sh [--rows N] [--work DIR] [--build DIR] [--reps 3]
#
#   --rows   rows of the table (default 1000000)
#   --work   scratch directory (default /tmp/lance-table-evolve-bench); rewritten each run
#   --build  build directory holding the `lance` CLI (default <repo>/build)
#   --reps   repetitions of merge-insert and update (median reported; default 3)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS=1000000
WORK=/tmp/lance-table-evolve-bench
BUILD="$REPO/build"
REPS=3
source "$REPO/bench/lib/peer_data.sh"
parse_options "--rows=ROWS --work=WORK --build=BUILD --reps=REPS" "$@"

LANCE_BIN="$BUILD/lance"
need_node_modules
need_exe "$LANCE_BIN" "build target lance_cli"
mkdir -p "$WORK"
NODE_PATH="$NODE_MODULES" LANCEDB_LOG=error node "$REPO/bench/table_evolve_peer.mjs" \
  --dir "$WORK" --lance "$LANCE_BIN" --rows "$ROWS" --reps "$REPS" --out "$WORK/results-$ROWS.json"
