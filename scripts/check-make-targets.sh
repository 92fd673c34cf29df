#!/usr/bin/env bash
# Every build target the Makefile and the READMEs name (`--target X ...`) must be a target the
# CMake project defines (add_executable / add_library / add_custom_target), so that the commands
# they give work on a fresh clone (issue 15: `make bench` named a target that did not exist).
# Usage: scripts/check-make-targets.sh [REPO]
set -euo pipefail
REPO="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$REPO"
defined="$(grep -rhoE 'add_(executable|library|custom_target)\(\s*[A-Za-z0-9_]+' CMakeLists.txt cmake \
           | sed -E 's/.*\(\s*//' | sort -u)"
# Fuzz targets are defined per src/**/*_fuzz.cc.
defined="$defined"$'\n'"$(find src -name '*_fuzz.cc' -exec basename {} .cc \; | sort -u)"
status=0
checked=0
while IFS= read -r src; do
  # The words after --target up to the end of the command (skipping make variables).
  while IFS= read -r line; do
    for t in $(sed -E 's/.*--target[[:space:]]+//; s/[`;&|].*//' <<<"$line"); do
      case "$t" in -*|'$'*|'<'*) break ;; esac
      checked=$((checked + 1))
      if ! grep -qx -- "$t" <<<"$defined"; then
        echo "$src: --target $t is not a target of the CMake project" >&2
        status=1
      fi
    done
  done < <(grep -E -- '--target[[:space:]]+[A-Za-z_]' "$src" || true)
done < <(ls Makefile README.md bench/README.md fuzz/README.md docs/*.md 2>/dev/null)
echo "checked $checked targets named in the Makefile and READMEs" >&2
exit $status
