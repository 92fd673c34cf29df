#!/usr/bin/env bash
# Full-text tokenizer throughput, ours (lance_bench BM_FtsTokenize_*) against the reference's
# tokenize() (lance 12 via @lancedb/lancedb in node) on the same corpus in the same run.
#
#   bench/run_fts_tokenizer_bench.sh [--build DIR] [--mb 4]
#
#   --build  a build directory configured with -DLANCE_BUILD_BENCH=ON (default <repo>/build)
#   --mb     corpus size in MiB (the interop corpus repeated, every other copy upper-cased, in
#            documents of 64 KiB so that the node binding's per-call cost stays small)
#
# Both sides are single-threaded; the reference's wall time includes the binding (the text
# crosses into Rust and the tokens come back as JS objects).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$REPO/build"
MB=4
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --mb) MB="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x "$BUILD/lance_bench" ]] || { echo "build lance_bench first (-DLANCE_BUILD_BENCH=ON)" >&2; exit 1; }
CORPUS=$(mktemp /tmp/fts-corpus.XXXXXX.jsonl)
trap 'rm -f "$CORPUS" "$CORPUS.ref" "$CORPUS.ours"' EXIT
NODE_PATH="$REPO/tests/interop/node_modules" LANCEDB_LOG=error \
  node "$REPO/bench/fts_tokenizer_peer.mjs" --corpus "$CORPUS" --mb "$MB" > "$CORPUS.ref"
LANCE_BENCH_FTS_CORPUS="$CORPUS" "$BUILD/lance_bench" --benchmark_filter=BM_FtsTokenize \
  --benchmark_format=json --benchmark_min_time=2 > "$CORPUS.ours" 2>/dev/null
python3 - "$CORPUS.ref" "$CORPUS.ours" <<'PY'
import json, sys
ref = {r["name"]: r for r in map(json.loads, open(sys.argv[1]))}
ours = {b["name"].replace("BM_FtsTokenize_", ""): b for b in json.load(open(sys.argv[2]))["benchmarks"]}
print(f'{"options":<14}{"tokens/doc":>11}{"ref Mtok/s":>12}{"ref cpu s":>10}{"ours Mtok/s":>13}{"ours MB/s":>10}{"ratio":>8}')
for name, r in ref.items():
    o = ours[name]
    ref_rate = r["tokens"] / r["wall_s"] / 1e6
    our_rate = o["tokens_per_s"] / 1e6
    print(f'{name:<14}{r["tokens"] / r["docs"]:>11.1f}{ref_rate:>12.2f}{r["cpu_s"]:>10.2f}{our_rate:>13.2f}{o["MB_per_s"]:>10.1f}{our_rate / ref_rate:>7.1f}x')
PY
