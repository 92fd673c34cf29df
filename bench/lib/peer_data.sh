# Shared by the bench/run_*_bench.sh scripts: where the reference packages and the data
# generator are, the checks for what a script needs, and the generated export.
# Source it after setting REPO (the repository root); the scripts use `set -euo pipefail`.

NODE_MODULES="$REPO/tests/interop/node_modules"
GEN_SRC="${LANCE_PEER_BENCH_DIR:-$REPO/../shared/bench/reference}/gen.mjs"

# Exits with a message when lance 12 (through @lancedb/lancedb) is not installed.
need_node_modules() {
  [[ -d "$NODE_MODULES/@lancedb/lancedb" ]] || { echo "missing $NODE_MODULES/@lancedb/lancedb" >&2; exit 1; }
}

# Exits with a message when the data generator is missing.
need_gen() {
  [[ -f "$GEN_SRC" ]] || { echo "missing generator $GEN_SRC" >&2; exit 1; }
}

# need_exe PATH HINT: exits with "missing PATH (HINT)" when PATH is not an executable.
need_exe() {
  [[ -x "$1" ]] || { echo "missing $1 ($2)" >&2; exit 1; }
}

# peer_export WORK ROWS [FILE...]: sets EXPORT=WORK/export-ROWS and fills it with ROWS generated
# rows unless the FILEs (default: workload.json base.arrow) are there already from an earlier run.
# gen.mjs is an ES module whose bare imports resolve from its own directory: it runs (and is
# imported) as a copy next to a node_modules link; the shared original stays untouched.
peer_export() {
  local work="$1" rows="$2"
  shift 2
  local files=("$@")
  [[ ${#files[@]} -gt 0 ]] || files=(workload.json base.arrow)
  mkdir -p "$work"
  cp "$GEN_SRC" "$work/gen.mjs"
  ln -sfn "$NODE_MODULES" "$work/node_modules"
  EXPORT="$work/export-$rows"
  local f
  for f in "${files[@]}"; do
    if [[ ! -f "$EXPORT/$f" ]]; then
      echo "== generating $rows rows into $EXPORT" >&2
      (cd "$work" && node gen.mjs --rows "$rows" --export "$EXPORT" >&2)
      return
    fi
  done
}

# parse_options SPEC "$@": SPEC lists a script's options, each "--name=VAR" (takes a value, put
# in VAR) or "--name:VAR" (a flag: VAR=1). Exits 2 on an unknown option or a missing value.
parse_options() {
  local spec="$1"
  shift
  local item found
  while [[ $# -gt 0 ]]; do
    found=0
    for item in $spec; do
      if [[ "$item" == "$1="* ]]; then
        [[ $# -ge 2 ]] || { echo "option $1 needs a value" >&2; exit 2; }
        printf -v "${item#*=}" '%s' "$2"
        shift 2
        found=1
        break
      elif [[ "$item" == "$1:"* ]]; then
        printf -v "${item#*:}" '%s' 1
        shift
        found=1
        break
      fi
    done
    [[ $found == 1 ]] || { echo "unknown option $1" >&2; exit 2; }
  done
}
