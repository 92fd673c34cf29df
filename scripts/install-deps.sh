#!/usr/bin/env bash
# Installs the Debian bookworm packages lance-cpp builds and tests with. Idempotent: when
# everything is present it prints nothing and touches nothing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libfmt-dev libzstd-dev liblz4-dev libroaring-dev
  flatbuffers-compiler libflatbuffers-dev protobuf-compiler libprotobuf-dev
  libcli11-dev nlohmann-json3-dev
  libstemmer-dev libdivsufsort-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nodejs npm
)
# Benchmark peers, opt-in (bench/run_linalg_bench.sh and bench/run_vector_index_bench.sh set
# LANCE_BENCH_PEERS=1): faiss with an optimised BLAS, the header-only hnswlib and Xapian (the
# full-text peer of issue 14's benchmark, beside SQLite FTS5), compared against, never linked
# into the library.
if [[ "${LANCE_BENCH_PEERS:-0}" == 1 ]]; then
  packages+=(libfaiss-dev libopenblas-pthread-dev libhnswlib-dev libxapian-dev)
fi
# Fuzzing and sanitizer builds use Debian's clang.
if [[ "${LANCE_WITH_CLANG:-0}" == 1 ]]; then
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  # node/npm may come from outside Debian (a newer node on the machine): accept the binary.
  if [[ "$p" == nodejs ]] && command -v node >/dev/null 2>&1; then continue; fi
  if [[ "$p" == npm ]] && command -v npm >/dev/null 2>&1; then continue; fi
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
