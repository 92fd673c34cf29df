#!/usr/bin/env bash
# Exact vector search side by side: ours (bench/linalg_bench.cc), the reference's brute-force
# search (lance 12.0.0 through @lancedb/lancedb 0.39.0, bench/linalg_peer.mjs) and faiss's
# IndexFlatL2 (Debian's libfaiss-dev, bench/peers/faiss_flat_peer.cc, compiled here alone), on
# the 1M x 128 float32 vectors and 100 queries of the peer-bench export.
#
#   bench/run_linalg_bench.sh [--rows N] [--work DIR] [--build DIR] [--queries 10] [--reps 3]
#                             [--skip-peer] [--skip-faiss]
#
#   --rows        rows of the generated data set (default 1000000)
#   --work        scratch directory (default /tmp/lance-linalg-bench); the export is kept per N
#   --build       build dir holding lance_bench (default <repo>/build-bench, configured with
#                 -DLANCE_BUILD_BENCH=ON)
#   --queries     queries the reference answers (~1 s each at 1M rows; default 10)
#   --reps        repetitions of our benchmarks (medians reported; default 3)
#   --skip-peer   reuse <work>/peer-N.json of an earlier run
#   --skip-faiss  reuse <work>/faiss-N.json of an earlier run
#
# Installs faiss (and OpenBLAS for it) through scripts/install-deps.sh with
# LANCE_BENCH_PEERS=1 when it is missing. Prints the comparison (ratio = peer time / ours; > 1
# means we are faster) and checks that our rows and distances are the reference's.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS=1000000
WORK=/tmp/lance-linalg-bench
BUILD="$REPO/build-bench"
QUERIES=10
REPS=3
SKIP_PEER=0
SKIP_FAISS=0
source "$REPO/bench/lib/peer_data.sh"
parse_options "--rows=ROWS --work=WORK --build=BUILD --queries=QUERIES --reps=REPS --skip-peer:SKIP_PEER --skip-faiss:SKIP_FAISS" "$@"

BENCH_BIN="$BUILD/lance_bench"
need_node_modules
need_gen
need_exe "$BENCH_BIN" "build target lance_bench with -DLANCE_BUILD_BENCH=ON"
peer_export "$WORK" "$ROWS"
export NODE_PATH="$NODE_MODULES"
node "$REPO/bench/linalg_peer.mjs" --dump "$EXPORT"

PEER_JSON="$WORK/peer-$ROWS.json"
if [[ $SKIP_PEER == 0 ]]; then
  echo "== reference (lance 12 via lancedb): $QUERIES queries" >&2
  LANCEDB_LOG=error node "$REPO/bench/linalg_peer.mjs" --export "$EXPORT" --dir "$WORK/ref-$ROWS" \
    --queries "$QUERIES" --out "$PEER_JSON"
fi

FAISS_JSON="$WORK/faiss-$ROWS.json"
if [[ $SKIP_FAISS == 0 ]]; then
  LANCE_BENCH_PEERS=1 "$REPO/scripts/install-deps.sh"
  echo "== faiss IndexFlatL2" >&2
  g++ -O2 -std=c++17 -fopenmp "$REPO/bench/peers/faiss_flat_peer.cc" -o "$WORK/faiss_flat_peer" \
    -lfaiss -lblas -llapack
  # OpenMP threads only (BLAS single-threaded inside them, no oversubscription).
  OPENBLAS_NUM_THREADS=1 "$WORK/faiss_flat_peer" "$EXPORT/vectors.f32" "$EXPORT/queries.f32" 128 "$FAISS_JSON"
fi

echo "== ours" >&2
OURS_JSON="$WORK/ours-$ROWS.json"
LANCE_LINALG_BENCH_EXPORT="$EXPORT" LANCE_LINALG_BENCH_RESULTS="$WORK/ours-results-$ROWS.json" \
  "$BENCH_BIN" --benchmark_filter='^BM_Linalg(Memcpy|Scan|Batch|Assign)' \
  --benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true \
  --benchmark_out_format=json --benchmark_out="$OURS_JSON" >&2

node "$REPO/bench/linalg_peer.mjs" --compare "$PEER_JSON" "$FAISS_JSON" "$OURS_JSON" \
  "$WORK/ours-results-$ROWS.json"
