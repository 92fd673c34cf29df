#!/usr/bin/env bash
# Side-by-side read benchmark of one Lance data file: the reference (lance 12.0.0 through
# @lancedb/lancedb 0.39.0 in node) writes and reads it, then our FileReader reads the same file.
#
#   bench/run_lance_file_bench.sh [--rows N] [--version 2.2] [--work DIR] [--build DIR]
#                                 [--reps 5]
#
#   --rows     rows of the generated data set (default 1000000; 100000 for a quick run)
#   --version  Lance data storage version the reference writes (2.0, 2.1, 2.2; default 2.2)
#   --work     scratch directory (default /tmp/lance-file-bench); the export is kept per N
#   --build    build dir holding lance_bench (default <repo>/build-bench, configured with
#              -DLANCE_BUILD_BENCH=ON)
#   --reps     repetitions of each of our benchmarks (median reported; default 5)
#
# Needs node 20 and the reference packages in tests/interop/node_modules. Writes
# <work>/peer-N.json, <work>/ours-N.json and prints the comparison table.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS=1000000
VERSION=2.2
WORK=/tmp/lance-file-bench
BUILD="$REPO/build-bench"
REPS=5
source "$REPO/bench/lib/peer_data.sh"
parse_options "--rows=ROWS --version=VERSION --work=WORK --build=BUILD --reps=REPS" "$@"

BENCH_BIN="$BUILD/lance_bench"
need_node_modules
need_gen
need_exe "$BENCH_BIN" "build target lance_bench with -DLANCE_BUILD_BENCH=ON"

peer_export "$WORK" "$ROWS"

PEER_JSON="$WORK/peer-$ROWS-$VERSION.json"
OURS_JSON="$WORK/ours-$ROWS-$VERSION.json"
echo "== reference: create table (storage $VERSION), scans and takes" >&2
NODE_PATH="$NODE_MODULES" node "$REPO/bench/lance_file_peer.mjs" --export "$EXPORT" \
  --dir "$WORK/table-$ROWS-$VERSION" --version "$VERSION" --out "$PEER_JSON" > /dev/null
DATA_FILE="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).data_file)' "$PEER_JSON")"

echo "== ours on $DATA_FILE" >&2
LANCE_FILE="$DATA_FILE" LANCE_FILE_WORKLOAD="$EXPORT/workload.json" "$BENCH_BIN" \
  --benchmark_filter='LanceFile' --benchmark_repetitions="$REPS" \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 \
  --benchmark_out="$OURS_JSON" --benchmark_out_format=json >&2

node "$REPO/bench/lance_file_table.mjs" "$PEER_JSON" "$OURS_JSON"
