#!/usr/bin/env bash
# Scalar index build and lookups (point, IN-list, ranges, the harness filter) with and without
# indexes, the reference (lance 12 via @lancedb/lancedb in node) and ours side by side, with
# ratios (bench/scalar_index_peer.mjs says what is timed).
#
#   bench/run_scalar_index_bench.sh [--rows 1000000] [--work DIR] [--build DIR] [--reps 10] [--build-reps 3] [--lists 0|1]
#                                   [--scale-rows 10000000]
#
#   --build       a build configured with -DLANCE_BUILD_BENCH=ON (lance and lance_bench)
#   --scale-rows  also run the narrow table (no list table) at this many rows and print the scale
#                 table (bench/scalar_index_scale.mjs: both sizes, each side's ratio of the two)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS=1000000
WORK=/tmp/lance-scalar-index-bench
BUILD="$REPO/build"
REPS=10
BUILD_REPS=3
LISTS=1
SCALE_ROWS=
source "$REPO/bench/lib/peer_data.sh"
parse_options "--rows=ROWS --work=WORK --build=BUILD --reps=REPS --build-reps=BUILD_REPS --lists=LISTS --scale-rows=SCALE_ROWS" "$@"

need_node_modules
need_exe "$BUILD/lance" "build target lance_cli"
need_exe "$BUILD/lance_bench" "configure with -DLANCE_BUILD_BENCH=ON, build target lance_bench"
NODE_PATH="$NODE_MODULES" LANCEDB_LOG=error node "$REPO/bench/scalar_index_peer.mjs" \
  --dir "$WORK/rows-$ROWS" --lance "$BUILD/lance" --bench "$BUILD/lance_bench" \
  --rows "$ROWS" --reps "$REPS" --build-reps "$BUILD_REPS" --lists "$LISTS"
if [[ -n "$SCALE_ROWS" ]]; then
  NODE_PATH="$NODE_MODULES" LANCEDB_LOG=error node "$REPO/bench/scalar_index_peer.mjs" \
    --dir "$WORK/rows-$SCALE_ROWS" --lance "$BUILD/lance" --bench "$BUILD/lance_bench" \
    --rows "$SCALE_ROWS" --reps "$REPS" --build-reps 1 --lists 0
  node "$REPO/bench/scalar_index_scale.mjs" "$WORK/rows-$ROWS/results.json" "$WORK/rows-$SCALE_ROWS/results.json"
fi
