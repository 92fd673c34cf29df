#!/usr/bin/env bash
# Installs the build into a fresh temporary prefix and builds and runs, against that prefix
# only, the out-of-tree consumers: examples/cmake-consumer (find_package(Lance)) and
# examples/pkg-config-consumer (pkg-config lance), plus a check that every installed header
# compiles on its own and includes no third-party header.
#   tests/install/consumers.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD="$(cd "$1" && pwd)"
SRC="$(cd "$2" && pwd)"
TMP="$(mktemp -d /tmp/lance-install-XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
PREFIX="$TMP/prefix"

cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
echo "installed into $PREFIX"

# Installed headers: self-contained, standard headers and each other only.
bad=$(grep -rnE '#include\s*[<"](fmt|google|flatbuffers|nlohmann|roaring|zstd|lz4|CLI|gtest)[/.]|\.pb\.h' \
      "$PREFIX/include" || true)
if [[ -n "$bad" ]]; then
  echo "installed headers include third-party headers:"; echo "$bad"; exit 1
fi
# Every header alone, one per core at a time (the check is most of this test's time).
check_header() {
  local rel="${1#$2/include/}"
  echo "#include <$rel>" | c++ -x c++ -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror \
      -I"$2/include" - || { echo "installed header $rel does not compile on its own"; return 1; }
}
export -f check_header
find "$PREFIX/include" \( -name '*.h' -o -name '*.hpp' \) -print0 \
  | xargs -0 -P "$(nproc)" -I{} bash -c 'check_header "$1" "$2"' _ {} "$PREFIX"
n=$(find "$PREFIX/include" \( -name '*.h' -o -name '*.hpp' \) | wc -l)
echo "$n installed headers compile on their own"
# The C ABI header must also be valid C99.
if [[ -f "$PREFIX/include/lance/lance.h" ]]; then
  echo '#include <lance/lance.h>' | cc -x c -std=c99 -pedantic -Wall -Werror -fsyntax-only \
    -I"$PREFIX/include" -
  echo "lance/lance.h compiles as C99"
fi

# CMake consumer.
cmake -S "$SRC/examples/cmake-consumer" -B "$TMP/cmake-consumer" -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$TMP/cmake-consumer" -j 2 >/dev/null
for exe in "$TMP"/cmake-consumer/lance_consumer*; do
  [[ -x "$exe" && -f "$exe" ]] || continue
  echo "run $(basename "$exe")"
  "$exe" "$TMP/data-$(basename "$exe")"
done

# pkg-config consumer (shared library; the run finds it through LD_LIBRARY_PATH).
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig:$(dirname "$(find "$PREFIX" -name lance.pc | head -1)")"
make -s -C "$SRC/examples/pkg-config-consumer" OUT="$TMP/pkg-config-consumer" >/dev/null
libdir="$(pkg-config --variable=libdir lance)"
for exe in "$TMP"/pkg-config-consumer/*; do
  [[ -x "$exe" && -f "$exe" ]] || continue
  echo "run $(basename "$exe")"
  LD_LIBRARY_PATH="$libdir" "$exe" "$TMP/data-pc-$(basename "$exe")"
done
echo "install consumers: OK"
