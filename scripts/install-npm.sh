#!/usr/bin/env bash
# Installs the interop peers (apache-arrow, @lancedb/lancedb) pinned by tests/interop's lock.
# `npm ci` refuses that lock on these machines (the package's other-platform builds are not
# served), so this runs `npm install` against it. Skipped when node_modules is up to date.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../tests/interop" && pwd)"
stamp="$dir/node_modules/.lance-install-stamp"
if [[ -f "$stamp" && "$stamp" -nt "$dir/package-lock.json" && "$stamp" -nt "$dir/package.json" ]]; then
  exit 0
fi
echo "install-npm: npm install in tests/interop" >&2
(cd "$dir" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
git -C "$dir" checkout -- package-lock.json 2>/dev/null || true
touch "$stamp"
