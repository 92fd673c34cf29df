#!/usr/bin/env bash
# Table operations side by side: the reference (lance 12.0.0 through @lancedb/lancedb 0.39.0
# in node, bench/table_peer.mjs) and ours (the library API, bench/table_bench.cc plus the
# filtered scan/count of bench/table_filter_bench.cc), on the same generated data.
#
#   bench/run_table_bench.sh [--rows N] [--work DIR] [--build DIR] [--reps 3] [--append 100000]
#                            [--skip-peer] [--narrow]
#
#   --rows       rows of the generated data set (default 1000000; 100000 for a quick run)
#   --work       scratch directory (default /tmp/lance-table-bench); the export is kept per N
#   --build      build dir holding lance_bench (default <repo>/build-bench, configured with
#                -DLANCE_BUILD_BENCH=ON)
#   --reps       repetitions of each operation on both sides (medians reported; default 3)
#   --append     rows appended by the append operation (default 100000)
#   --skip-peer  reuse <work>/peer-N.json from an earlier run (ours only)
#   --narrow     the data without its vector column (bench/gen_narrow.mjs; for 10M rows, whose
#                full export would be 7 GB): files and results named N-narrow
#
# Writes <work>/peer-N.json, <work>/ours-create-N.json, <work>/ours-N.json and prints the
# comparison (ratio = reference time / ours; > 1 means we are faster), wall and CPU time.
# Create and the mutations (append, delete, update 1 %, merge-insert) are printed twice: ours
# durable (the default: every commit flushed to disk before it returns) and ours with
# `--no-sync` (CommitOptions::sync = false: NOT durable, the reference's own guarantee -- lance
# 12 flushes nothing on local datasets), both against the same reference figure.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS=1000000
WORK=/tmp/lance-table-bench
BUILD="$REPO/build-bench"
REPS=3
APPEND=100000
SKIP_PEER=0
NARROW=0
source "$REPO/bench/lib/peer_data.sh"
parse_options "--rows=ROWS --work=WORK --build=BUILD --reps=REPS --append=APPEND --skip-peer:SKIP_PEER --narrow:NARROW" "$@"

BENCH_BIN="$BUILD/lance_bench"
need_node_modules
need_gen
need_exe "$BENCH_BIN" "build target lance_bench with -DLANCE_BUILD_BENCH=ON"

TAG="$ROWS"
if [[ $NARROW == 1 ]]; then
  TAG="$ROWS-narrow"
  mkdir -p "$WORK"  # the generator next to node_modules (as peer_export places it)
  cp "$GEN_SRC" "$WORK/gen.mjs"
  ln -sfn "$NODE_MODULES" "$WORK/node_modules"
  EXPORT="$WORK/export-$TAG"
  if [[ ! -f "$EXPORT/base.arrow" || ! -f "$EXPORT/workload.json" ]]; then
    echo "== generating $ROWS rows without vectors into $EXPORT" >&2
    node "$REPO/bench/gen_narrow.mjs" --gen "$WORK/gen.mjs" --rows "$ROWS" --export "$EXPORT" >&2
  fi
else
  peer_export "$WORK" "$ROWS"
fi

PEER_JSON="$WORK/peer-$TAG.json"
if [[ $SKIP_PEER == 0 ]]; then
  echo "== reference (lance 12 via lancedb): $REPS reps" >&2
  NODE_PATH="$NODE_MODULES" LANCEDB_LOG=error node "$REPO/bench/table_peer.mjs" --gen "$WORK/gen.mjs" \
    --export "$EXPORT" --dir "$WORK/ref-$TAG" --reps "$REPS" --append "$APPEND" --out "$PEER_JSON"
  # The reference's tables are not needed any more (1M rows: several GB with the copies).
  rm -rf "$WORK/ref-$TAG"
fi

OURS_DIR="$WORK/ours-$TAG"
mkdir -p "$OURS_DIR"
export LANCE_TABLE_BENCH_EXPORT="$EXPORT" LANCE_TABLE_BENCH_DIR="$OURS_DIR" LANCE_TABLE_BENCH_APPEND="$APPEND"
COMMON=(--benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true --benchmark_out_format=json)
echo "== ours: create" >&2
"$BENCH_BIN" --benchmark_filter='^BM_TableCreate(NoSync)?/' "${COMMON[@]}" \
  --benchmark_out="$WORK/ours-create-$TAG.json" >&2
echo "== ours: reads and mutations of $OURS_DIR/base" >&2
LANCE_TABLE="$OURS_DIR/base" LANCE_TABLE_FILTER="$(node -e \
  'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).filter)' "$EXPORT/workload.json")" \
  "$BENCH_BIN" \
  --benchmark_filter='^BM_(Memcpy|Table(ScanAll|ScanId|Take|OpenLatest|FilterScanIds|FilterCount|(Append|Delete|Update|MergeInsert)(NoSync)?))/' \
  "${COMMON[@]}" --benchmark_min_time=0.2 --benchmark_out="$WORK/ours-$TAG.json" >&2

node "$REPO/bench/table_peer.mjs" --compare "$PEER_JSON" "$WORK/ours-create-$TAG.json" "$WORK/ours-$TAG.json"
