#!/usr/bin/env bash
# Filtered scan and filtered count on the 1M-row peer-bench data, reference (lance 12 via
# @lancedb/lancedb in node) and ours (the lance CLI) side by side, with ratios.
#
#   bench/run_table_filter_bench.sh [--rows N] [--work DIR] [--build DIR] [--reps 10]
#
#   --rows   rows of the generated data (default 1000000)
#   --work   scratch directory (default /tmp/lance-table-filter-bench); the export and the
#            reference-written table are kept there and reused
#   --build  build directory holding the `lance` CLI (default <repo>/build) and, when it was
#            configured with -DLANCE_BUILD_BENCH=ON, lance_bench (adds in-process figures)
#   --reps   timed repetitions after the first call (median reported; default 10)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS=1000000
WORK=/tmp/lance-table-filter-bench
BUILD="$REPO/build"
REPS=10
source "$REPO/bench/lib/peer_data.sh"
parse_options "--rows=ROWS --work=WORK --build=BUILD --reps=REPS" "$@"

LANCE_BIN="$BUILD/lance"
need_node_modules
need_gen
need_exe "$LANCE_BIN" "build target lance_cli"

peer_export "$WORK" "$ROWS"
BENCH_ARGS=()
[[ -x "$BUILD/lance_bench" ]] && BENCH_ARGS=(--bench "$BUILD/lance_bench")
NODE_PATH="$NODE_MODULES" LANCEDB_LOG=error node "$REPO/bench/table_filter_peer.mjs" \
  --export "$EXPORT" --dir "$WORK/table-$ROWS" --lance "$LANCE_BIN" --reps "$REPS" \
  "${BENCH_ARGS[@]}" --out "$WORK/results-$ROWS.json"
