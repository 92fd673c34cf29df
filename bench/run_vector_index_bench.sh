#!/usr/bin/env bash
# Vector indexes side by side: ours (`lance create-index` / `lance search`), lance 12.0.0
# (@lancedb/lancedb 0.39.0) and, for IVF_HNSW_SQ, hnswlib 0.6.2 (Debian's header-only
# libhnswlib-dev, bench/peers/hnswlib_peer.cc compiled here alone, never linked into the
# library), on the same generated vectors and queries (bench/vector_index_peer.mjs).
#
#   bench/run_vector_index_bench.sh [--build DIR] [--work DIR] [ARGS of vector_index_peer.mjs]
#
#   --build   build dir holding the `lance` CLI (default <repo>/build)
#   --work    scratch directory (default /tmp/lance-vector-bench)
# e.g. bench/run_vector_index_bench.sh --rows 100000 --partitions 256 --nprobes 20 --types ivf_hnsw_sq
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$REPO/build"
WORK=/tmp/lance-vector-bench
rest=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
[[ -x "$BUILD/lance" ]] || { echo "run_vector_index_bench: no $BUILD/lance (build target lance_cli)" >&2; exit 2; }
[[ -d "$REPO/tests/interop/node_modules" ]] || { echo "run_vector_index_bench: run scripts/install-npm.sh first" >&2; exit 2; }

LANCE_BENCH_PEERS=1 "$REPO/scripts/install-deps.sh"
mkdir -p "$WORK.peer"
PEER="$WORK.peer/hnswlib_peer"
if [[ ! -x "$PEER" || "$REPO/bench/peers/hnswlib_peer.cc" -nt "$PEER" ]]; then
  echo "== compiling the hnswlib peer" >&2
  # -march=native: hnswlib picks its SSE / AVX distance at compile time.
  g++ -O2 -march=native -std=c++17 -pthread "$REPO/bench/peers/hnswlib_peer.cc" -o "$PEER"
fi
node "$REPO/bench/vector_index_peer.mjs" --lance "$BUILD/lance" --work "$WORK" --hnswlib "$PEER" "${rest[@]}"
