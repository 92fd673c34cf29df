#!/usr/bin/env bash
# IVF_PQ on the shared harness's 1M x 128 vectors, side by side in one run: ours, lance 12.0.0
# (@lancedb/lancedb 0.39.0), faiss IVF-PQ (Debian's libfaiss-dev, bench/peers/faiss_ivfpq_peer.cc)
# and, with --hnswlib, hnswlib's HNSW (Debian's libhnswlib-dev, bench/peers/hnswlib_peer.cc).
# The peers are compiled here alone, never linked into the library (bench/vector_1m_bench.mjs
# says what is timed and how).
#
#   bench/run_vector_1m_bench.sh [--build DIR] [--work DIR] [--export DIR] [--rows N] [--hnswlib]
#                                [--full] [ARGS of vector_1m_bench.mjs]
#
#   --build    build dir holding the `lance` CLI (default <repo>/build)
#   --work     scratch directory (default /tmp/lance-vector-1m; deleted and recreated)
#   --export   the harness export (default /tmp/peer-bench/export-N; made by
#              ../shared/bench/reference/gen.mjs --rows N --export DIR when missing)
#   --rows     harness rows (default 1000000)
#   --hnswlib  add hnswlib (M 16, ef_construction 100, ef 64 by default: several minutes at 1M)
#   --full     the issue's whole table: --types ivf_pq,ivf_flat,ivf_hnsw_sq --exact 10 --hnswlib and
#              faiss's exact IndexFlatL2 (bench/peers/faiss_flat_peer.cc); ~30 min at 1M on 2 vCPUs
# e.g. bench/run_vector_1m_bench.sh --seeds 0,1,2 --ref-builds 2
#      bench/run_vector_1m_bench.sh --types ivf_pq,ivf_flat --exact 10
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$REPO/build"
WORK=/tmp/lance-vector-1m
ROWS=1000000
EXPORT=""
HNSW=0
FULL=0
EXACT=0
rest=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    --export) EXPORT="$2"; shift 2 ;;
    --rows) ROWS="$2"; shift 2 ;;
    --hnswlib) HNSW=1; shift ;;
    --full) FULL=1; HNSW=1; EXACT=1; rest+=(--types ivf_pq,ivf_flat,ivf_hnsw_sq --exact 10); shift ;;
    --exact) EXACT=1; rest+=("$1" "$2"); shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
EXPORT="${EXPORT:-/tmp/peer-bench/export-$ROWS}"
[[ -x "$BUILD/lance" ]] || { echo "run_vector_1m_bench: no $BUILD/lance (build target lance_cli)" >&2; exit 2; }
[[ -d "$REPO/tests/interop/node_modules" ]] || { echo "run_vector_1m_bench: run scripts/install-npm.sh first" >&2; exit 2; }
HARNESS="$REPO/../shared/bench/reference"
[[ -f "$HARNESS/gen.mjs" ]] || HARNESS=/work/shared/bench/reference

LANCE_BENCH_PEERS=1 "$REPO/scripts/install-deps.sh"
PEERS="$WORK.peers"
mkdir -p "$PEERS"
if [[ ! -x "$PEERS/faiss_ivfpq_peer" || "$REPO/bench/peers/faiss_ivfpq_peer.cc" -nt "$PEERS/faiss_ivfpq_peer" ]]; then
  echo "== compiling the faiss IVF-PQ peer" >&2
  g++ -O2 -std=c++17 -fopenmp "$REPO/bench/peers/faiss_ivfpq_peer.cc" -o "$PEERS/faiss_ivfpq_peer" -lfaiss -lblas -llapack
fi
peer_args=(--faiss "$PEERS/faiss_ivfpq_peer")
if [[ $EXACT == 1 ]]; then
  if [[ ! -x "$PEERS/faiss_flat_peer" || "$REPO/bench/peers/faiss_flat_peer.cc" -nt "$PEERS/faiss_flat_peer" ]]; then
    echo "== compiling the faiss flat peer" >&2
    g++ -O2 -std=c++17 -fopenmp "$REPO/bench/peers/faiss_flat_peer.cc" -o "$PEERS/faiss_flat_peer" -lfaiss -lblas -llapack
  fi
  peer_args+=(--faiss-flat "$PEERS/faiss_flat_peer")
fi
if [[ $HNSW == 1 ]]; then
  if [[ ! -x "$PEERS/hnswlib_peer" || "$REPO/bench/peers/hnswlib_peer.cc" -nt "$PEERS/hnswlib_peer" ]]; then
    echo "== compiling the hnswlib peer" >&2
    g++ -O2 -march=native -std=c++17 -pthread "$REPO/bench/peers/hnswlib_peer.cc" -o "$PEERS/hnswlib_peer"
  fi
  peer_args+=(--hnswlib "$PEERS/hnswlib_peer")
fi
if [[ ! -f "$EXPORT/base.arrow" ]]; then
  echo "== exporting $ROWS harness rows to $EXPORT" >&2
  # gen.mjs imports apache-arrow: run a copy beside the interop tests' node_modules.
  mkdir -p "$PEERS/harness"
  cp "$HARNESS/gen.mjs" "$PEERS/harness/gen.mjs"
  ln -sfn "$REPO/tests/interop/node_modules" "$PEERS/harness/node_modules"
  node "$PEERS/harness/gen.mjs" --rows "$ROWS" --export "$EXPORT"
fi
uptime
node "$REPO/bench/vector_1m_bench.mjs" --lance "$BUILD/lance" --export "$EXPORT" --work "$WORK" "${peer_args[@]}" "${rest[@]}"
uptime
