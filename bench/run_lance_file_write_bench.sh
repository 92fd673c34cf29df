#!/usr/bin/env bash
# Write throughput of one Lance data file, side by side: lance 12 (through @lancedb/lancedb
# 0.39.0 in node) creating a one-fragment table from the benchmark rows, and our FileWriter
# through `lance file write` (reads the Arrow IPC file, writes the .lance file, fsyncs it).
#
#   bench/run_lance_file_write_bench.sh [--rows N] [--version 2.2] [--work DIR] [--build DIR]
#                                       [--reps 3] [--peer-reps 2]
#
#   --rows     rows of the generated data set (default 1000000)
#   --version  data storage version both sides write (2.1 or 2.2; default 2.2)
#   --work     scratch directory (default /tmp/lance-file-write-bench)
#   --build    build dir holding the `lance` CLI (default <repo>/build)
#
# Prints one JSON line per side: median/min wall time, our CPU time, and the file sizes.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS=1000000
VERSION=2.2
WORK=/tmp/lance-file-write-bench
BUILD="$REPO/build"
REPS=3
PEER_REPS=2
source "$REPO/bench/lib/peer_data.sh"
parse_options "--rows=ROWS --version=VERSION --work=WORK --build=BUILD --reps=REPS --peer-reps=PEER_REPS" "$@"

LANCE="$BUILD/lance"
need_exe "$LANCE" "build target lance_cli"
need_gen

peer_export "$WORK" "$ROWS" base.arrow

echo "== reference: createTable (storage $VERSION), $PEER_REPS reps" >&2
NODE_PATH="$NODE_MODULES" node "$REPO/bench/lance_file_write_peer.mjs" --arrow "$EXPORT/base.arrow" \
  --dir "$WORK/peer" --version "$VERSION" --reps "$PEER_REPS"

echo "== ours: lance file write, $REPS reps" >&2
OUT="$WORK/ours-$ROWS-$VERSION.lance"
walls=()
cpus=()
for ((r = 0; r < REPS; r++)); do
  rm -f "$OUT"
  /usr/bin/time -f "%e %U %S" -o "$WORK/time.txt" "$LANCE" file write "$EXPORT/base.arrow" "$OUT" \
    --version "$VERSION" > /dev/null
  read -r wall user sys < "$WORK/time.txt"
  walls+=("$wall")
  cpus+=("$(echo "$user + $sys" | bc)")
done
SIZE="$(stat -c %s "$OUT")"
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
minimum() { printf '%s\n' "$@" | sort -g | head -1; }
echo "{\"side\":\"lance-cpp\",\"version\":\"$VERSION\",\"rows\":$ROWS,\"median_ms\":$(echo "$(median "${walls[@]}") * 1000" | bc),\"min_ms\":$(echo "$(minimum "${walls[@]}") * 1000" | bc),\"median_cpu_ms\":$(echo "$(median "${cpus[@]}") * 1000" | bc),\"data_file_bytes\":$SIZE}"
rm -f "$OUT"
