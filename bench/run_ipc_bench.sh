#!/usr/bin/env bash
# Arrow IPC read/write side by side with apache-arrow on the same file, in one session.
#   bench/run_ipc_bench.sh [--mb 256] [--build build-bench] [--work /tmp/lance-ipc-bench] [--reps 5]
# Prints GB/s for memcpy, our read/write and apache-arrow's read/write, and the ratios.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mb=256; build="$root/build-bench"; work=/tmp/lance-ipc-bench; reps=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mb) mb="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"
file="$work/mixed-${mb}mb.arrow"
[[ -f "$file" ]] || node "$root/bench/ipc_peer.mjs" make "$file" "$mb"
peer=$(node "$root/bench/ipc_peer.mjs" time "$file" "$reps")
ours=$(LANCE_IPC_FILE="$file" "$build/lance_bench" --benchmark_filter='BM_IpcPeerFile' \
  --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true --benchmark_format=json 2>/dev/null)
PEER="$peer" OURS="$ours" node -e '
const peer = JSON.parse(process.env.PEER);
const ours = JSON.parse(process.env.OURS).benchmarks.filter(b => b.aggregate_name === "median");
const gbps = name => { const b = ours.find(x => x.run_name === name); return b.bytes_per_second / 1e9; };
const mem = gbps("BM_IpcPeerFile/memcpy/real_time");
const rd = gbps("BM_IpcPeerFile/read/real_time");
const rdv = gbps("BM_IpcPeerFile/read_validate_full/real_time");
const wr = gbps("BM_IpcPeerFile/write/real_time");
const f = x => x.toFixed(2).padStart(9);
console.log(`file: ${peer.bytes} bytes, ${peer.rows} rows (medians)`);
console.log("                          GB/s   vs memcpy   speed-up vs apache-arrow");
console.log(`memcpy               ${f(mem)}`);
console.log(`read (zero-copy)     ${f(rd)}   ${f(rd / mem)}   ${f(rd / peer.read_gbps)}`);
console.log(`read + ValidateFull  ${f(rdv)}   ${f(rdv / mem)}   ${f(rdv / peer.read_gbps)}`);
console.log(`write                ${f(wr)}   ${f(wr / mem)}   ${f(wr / peer.write_gbps)}`);
console.log(`apache-arrow read    ${f(peer.read_gbps)}   ${f(peer.read_gbps / mem)}`);
console.log(`apache-arrow write   ${f(peer.write_gbps)}   ${f(peer.write_gbps / mem)}`);
'
