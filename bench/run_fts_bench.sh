#!/usr/bin/env bash
# Full-text search side by side (issue 14): index build time and size, and query latency
# (p50 / p99 / CPU over many queries: 1-term, 2-term OR, 2-term AND, phrase, frequent terms,
# rare terms) of ours (bench/fts/fts_search_bench.cc, in process through the C++ API), lance 12
# (in process from node), SQLite FTS5 and Xapian (bench/peers/, Debian's packages, compiled
# here alone) on the peer-bench harness's 1M rows of 10-30-word text. Checks our top-k rows and
# scores (on our index and on lance 12's) against lance 12's on every query; the peers' hit
# counts and overlap are reported. bench/fts_peer.mjs says what each side times.
#
# Then, on the same rows in the same run (item 9's other rows): contains(text, 'x') and
# text LIKE '%x%' with and without an FM index (bench/fm_index_bench.mjs --plain: lance 12 and
# ours each build FM on a hard-linked copy of the same table; ours in process through
# lance_bench BM_ScalarIndex / BM_ScalarScan) and hybrid search latency (bench/hybrid_bench.mjs
# --export: the harness's rows with their 128-d vectors, exact vector top-k + BM25 top-k fused
# by RRF, ours through `lance search --text --vector --timing`); the last step prints every
# table with ratios.
#
#   bench/run_fts_bench.sh [--rows 1000000] [--work DIR] [--build DIR] [--reps 5] [--k 10]
#                          [--build-reps 1] [--peer-reps 2] [--reuse] [--skip-peers]
#                          [--skip-contains] [--skip-hybrid] [--hybrid-reps 10]
#                          [--fm-build-reps 1] [--skip-fm-build] [--hybrid-vector-index none,ivf_flat,ivf_pq]
#
#   --rows        rows of the generated data set (default 1000000)
#   --work        scratch directory (default /tmp/lance-fts-bench); the export is kept per N
#   --build       build dir holding lance_fts_bench (default <repo>/build, configured with
#                 -DLANCE_BUILD_BENCH=ON)
#   --reps        timed passes over every query after one untimed pass (default 5)
#   --build-reps  our index builds, median reported (default 1; lance 12 and the peers build once)
#   --peer-reps   timed passes for SQLite FTS5 and Xapian (default 2: FTS5 takes up to 2 s for a
#                 frequent term, and the script is to stay near 10 minutes)
#   --reuse       keep the table lance 12 wrote in an earlier run (the indexes are rebuilt)
#   --skip-peers  leave out SQLite FTS5 and Xapian (their results of an earlier run are kept)
#   --skip-contains / --skip-hybrid  leave out those rows (results of an earlier run are kept);
#                 with --reuse the FM indexes and the hybrid table of an earlier run are kept
#                 (the FM builds take minutes on each side)
#   --fm-build-reps  FM builds on each side, alternating, on fresh copies of the table
#                 (fm_build_bench.mjs: wall and CPU medians; default 1); --skip-fm-build leaves
#                 them out (results of an earlier run are kept)
#   --hybrid-vector-index  the hybrid rows' vector sides, comma-separated (default
#                 none,ivf_flat,ivf_pq): none = exact k-NN, ivf_* = an index lance 12 builds on the
#                 hybrid table (hybrid_bench.mjs --vector-index, sqrt(rows) partitions, nprobes 20),
#                 searched by both
#
# Prints the tables (ratio = peer time / ours: > 1 means we are faster) and exits 1 when our
# results differ from lance 12's. Installs libxapian-dev / libsqlite3-dev through
# scripts/install-deps.sh (LANCE_BENCH_PEERS=1) when missing.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS=1000000
WORK=/tmp/lance-fts-bench
BUILD="$REPO/build"
REPS=5
K=10
BUILD_REPS=1
PEER_REPS=2
REUSE=0
SKIP_PEERS=0
SKIP_CONTAINS=0
SKIP_HYBRID=0
HYBRID_REPS=10
FM_BUILD_REPS=1
SKIP_FM_BUILD=0
HYBRID_VECTOR_INDEX=none,ivf_flat,ivf_pq
source "$REPO/bench/lib/peer_data.sh"
parse_options "--rows=ROWS --work=WORK --build=BUILD --reps=REPS --k=K --build-reps=BUILD_REPS --peer-reps=PEER_REPS --reuse:REUSE --skip-peers:SKIP_PEERS --skip-contains:SKIP_CONTAINS --skip-hybrid:SKIP_HYBRID --hybrid-reps=HYBRID_REPS --fm-build-reps=FM_BUILD_REPS --skip-fm-build:SKIP_FM_BUILD --hybrid-vector-index=HYBRID_VECTOR_INDEX" "$@"

BENCH_BIN="$BUILD/lance_fts_bench"
need_node_modules
need_gen
need_exe "$BENCH_BIN" "configure with -DLANCE_BUILD_BENCH=ON, build target lance_fts_bench"
export NODE_PATH="$NODE_MODULES" LANCEDB_LOG=error
echo "== load at start: $(uptime)" >&2
peer_export "$WORK" "$ROWS"
DIR="$WORK/rows-$ROWS"
mkdir -p "$DIR"
PREP=(--prepare --export "$EXPORT" --gen "$WORK/gen.mjs" --dir "$DIR")
[[ $REUSE == 1 ]] && PREP+=(--reuse)
node "$REPO/bench/fts_peer.mjs" "${PREP[@]}"

echo "== lance 12 (in process, node): builds and queries; load $(uptime | sed 's/.*average: //')" >&2
node "$REPO/bench/fts_peer.mjs" --reference --dir "$DIR" --reps "$REPS" --k "$K" --out "$DIR/ref.json"

echo "== ours (lance_fts_bench): builds and queries; load $(uptime | sed 's/.*average: //')" >&2
"$BENCH_BIN" --build --build-reps "$BUILD_REPS" --nopos "$DIR/tables/ours.lance" --pos "$DIR/tables/ours_pos.lance" \
  --queries "$DIR/queries.tsv" --reps "$REPS" --k "$K" --out "$DIR/ours.json"
echo "== ours on lance 12's indexes; load $(uptime | sed 's/.*average: //')" >&2
"$BENCH_BIN" --nopos "$DIR/tables/ref.lance" --pos "$DIR/tables/ref_pos.lance" \
  --queries "$DIR/queries.tsv" --reps "$REPS" --k "$K" --out "$DIR/ours-on-ref.json"

if [[ $SKIP_PEERS == 0 ]]; then
  if ! [[ -f /usr/include/xapian.h && -f /usr/include/sqlite3.h ]]; then
    LANCE_BENCH_PEERS=1 "$REPO/scripts/install-deps.sh"
  fi
  g++ -O2 -std=c++17 "$REPO/bench/peers/sqlite_fts5_peer.cc" -o "$WORK/sqlite_fts5_peer" -lsqlite3
  g++ -O2 -std=c++17 "$REPO/bench/peers/xapian_fts_peer.cc" -o "$WORK/xapian_fts_peer" -lxapian
  mkdir -p "$DIR/sqlite" "$DIR/xapian"
  echo "== SQLite FTS5: builds and queries; load $(uptime | sed 's/.*average: //')" >&2
  "$WORK/sqlite_fts5_peer" "$DIR/corpus.txt" "$DIR/queries.tsv" "$DIR/sqlite" "$PEER_REPS" "$K" "$DIR/sqlite.json"
  echo "== Xapian: builds and queries; load $(uptime | sed 's/.*average: //')" >&2
  "$WORK/xapian_fts_peer" "$DIR/corpus.txt" "$DIR/queries.tsv" "$DIR/xapian" "$PEER_REPS" "$K" "$DIR/xapian.json"
fi

REUSE_ARG=()
[[ $REUSE == 1 ]] && REUSE_ARG=(--reuse)
if [[ $SKIP_CONTAINS == 0 ]]; then
  need_exe "$BUILD/lance" "build target lance_cli"
  need_exe "$BUILD/lance_bench" "configure with -DLANCE_BUILD_BENCH=ON, build target lance_bench"
  echo "== contains / LIKE with and without FM (fm_index_bench.mjs); load $(uptime | sed 's/.*average: //')" >&2
  (cd "$REPO" && node bench/fm_index_bench.mjs --lance "$BUILD/lance" --bench "$BUILD/lance_bench" --plain "$DIR/tables/plain.lance" \
    --vocab-from "$WORK/gen.mjs" --work "$DIR/fm" --reps "$REPS" --like --out "$DIR/contains.json" "${REUSE_ARG[@]}")
fi
if [[ $SKIP_FM_BUILD == 0 ]]; then
  need_exe "$BUILD/lance" "build target lance_cli"
  echo "== FM build (fm_build_bench.mjs); load $(uptime | sed 's/.*average: //')" >&2
  (cd "$REPO" && node bench/fm_build_bench.mjs --lance "$BUILD/lance" --plain "$DIR/tables/plain.lance" \
    --work "$DIR/fm-build" --reps "$FM_BUILD_REPS" --out "$DIR/fm_build.json")
fi
if [[ $SKIP_HYBRID == 0 ]]; then
  need_exe "$BUILD/lance" "build target lance_cli"
  for vi in ${HYBRID_VECTOR_INDEX//,/ }; do
    out="$DIR/hybrid.json"
    [[ $vi == none ]] || out="$DIR/hybrid_$vi.json"
    echo "== hybrid search (hybrid_bench.mjs --vector-index $vi); load $(uptime | sed 's/.*average: //')" >&2
    (cd "$REPO" && node bench/hybrid_bench.mjs --lance "$BUILD/lance" --export "$EXPORT" --work "$DIR/hybrid" \
      --vector-index "$vi" --reps "$HYBRID_REPS" --out "$out" "${REUSE_ARG[@]}")
  done
fi

echo "== load at end: $(uptime)" >&2
status=0
node "$REPO/bench/fts_peer.mjs" --compare --dir "$DIR" || status=$?
for f in contains fm_build hybrid hybrid_ivf_flat hybrid_ivf_pq; do
  if [[ -f "$DIR/$f.json.md" ]]; then
    echo
    cat "$DIR/$f.json.md"
  fi
done
exit $status
