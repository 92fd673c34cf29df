#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for a bounded time, each seeded by its corpus
# fuzz/corpus/<target>/ (read-only: new inputs go to a scratch directory).
#
#   scripts/run-fuzzers.sh [BUILD_DIR] [SECONDS_PER_TARGET] [TARGET...]
#
# BUILD_DIR defaults to build-fuzz (configured by `make fuzz`), SECONDS to 60; without TARGETs
# every src/**/*_fuzz.cc is run. A crash leaves crash-<sha1> in fuzz/artifacts/<target>/ and
# makes the script exit non-zero after the remaining targets have run.
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$REPO/build-fuzz}"
SECONDS_PER_TARGET="${2:-60}"
shift $(( $# > 2 ? 2 : $# ))
if [[ $# -gt 0 ]]; then
  targets=("$@")
else
  mapfile -t targets < <(find "$REPO/src" -name '*_fuzz.cc' -printf '%f\n' | sed 's/\.cc$//' | sort)
fi

failed=()
for t in "${targets[@]}"; do
  bin="$BUILD/$t"
  if [[ ! -x "$bin" ]]; then
    echo "== $t: missing $bin (build it with make fuzz)" >&2
    failed+=("$t")
    continue
  fi
  seeds="$REPO/fuzz/corpus/$t"
  scratch="$(mktemp -d "/tmp/$t.XXXXXX")"
  artifacts="$REPO/fuzz/artifacts/$t"
  mkdir -p "$artifacts"
  echo "== $t: ${SECONDS_PER_TARGET}s, seeds $(ls "$seeds" 2>/dev/null | wc -l) in fuzz/corpus/$t" >&2
  args=(-max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=20 -max_len=1048576
        -print_final_stats=1 -artifact_prefix="$artifacts/" "$scratch")
  [[ -d "$seeds" ]] && args+=("$seeds")
  if "$bin" "${args[@]}" > "$scratch.log" 2>&1; then
    grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$scratch.log" | tail -2 >&2
  else
    echo "== $t: FAILED, see $scratch.log and $artifacts/" >&2
    tail -30 "$scratch.log" >&2
    failed+=("$t")
  fi
  rm -rf "$scratch"
done
rmdir "$REPO/fuzz/artifacts"/* "$REPO/fuzz/artifacts" 2>/dev/null || true
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: ${#failed[@]} of ${#targets[@]} targets failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${SECONDS_PER_TARGET}s each without a crash" >&2
