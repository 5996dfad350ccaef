#!/usr/bin/env bash
# npm.sh installs the pinned Node tools of tools/npm (the MCP conformance suite and
# the TypeScript SDK) with `npm ci`, unless node_modules already matches the
# lockfile, and prints the directory that holds node_modules.
set -euo pipefail

dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/npm" && pwd)
stamp=$dir/node_modules/.ferry-lock.sha256
want=$(cat "$dir/package.json" "$dir/package-lock.json" | sha256sum | cut -d' ' -f1)

if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  command -v npm >/dev/null || { echo "npm.sh: npm is required" >&2; exit 1; }
  (
    flock 9
    [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && exit 0
    echo "npm.sh: npm ci in $dir" >&2
    # The conformance package declares node >= 22; npm's own node may be older,
    # which only matters for running it (see node22.sh), not for installing it.
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false >&2)
    echo "$want" >"$stamp"
  ) 9>"$dir/.npm.lock"
fi
echo "$dir"
