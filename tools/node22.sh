#!/usr/bin/env bash
# node22.sh prints the path of a Node.js >= 22 binary.
#
# The conformance CLI needs Node 22 (it uses fs.globSync). If the node on PATH is
# older, the npm package node-linux-<arch> (a plain node binary) is installed once
# into a cache dir; only the npm registry needs to be reachable.
#
# Environment: FERRY_NODE  a node >= 22 to use as is.
#              FERRY_CACHE cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/ferry).
set -euo pipefail

NODE_VERSION=22.23.5

major() { "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }

if [ -n "${FERRY_NODE:-}" ]; then
  [ "$(major "$FERRY_NODE")" -ge 22 ] || { echo "node22.sh: FERRY_NODE=$FERRY_NODE is not node >= 22" >&2; exit 1; }
  echo "$FERRY_NODE"; exit 0
fi
if command -v node >/dev/null && [ "$(major node)" -ge 22 ]; then
  command -v node; exit 0
fi

case "$(uname -m)" in
  x86_64|amd64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "node22.sh: no node >= 22 on PATH and no prebuilt package for $(uname -m)" >&2; exit 1 ;;
esac
pkg=node-linux-$arch
cache=${FERRY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ferry}
dir=$cache/node-$NODE_VERSION-linux-$arch
bin=$dir/node_modules/$pkg/bin/node

if [ ! -x "$bin" ]; then
  command -v npm >/dev/null || { echo "node22.sh: npm is needed to install $pkg" >&2; exit 1; }
  mkdir -p "$cache"
  (
    flock 9
    [ -x "$bin" ] && exit 0 # another process installed it while we waited
    echo "node22.sh: installing $pkg@$NODE_VERSION into $dir" >&2
    tmp=$(mktemp -d "$cache/.node-XXXXXX") && chmod 755 "$tmp"
    trap 'rm -rf "$tmp"' EXIT
    npm install --prefix "$tmp" --no-save --no-audit --no-fund --loglevel=error "$pkg@$NODE_VERSION" >&2
    rm -rf "$dir" && mv "$tmp" "$dir"
  ) 9>"$cache/.node.lock"
fi
[ "$(major "$bin")" -ge 22 ] || { echo "node22.sh: $bin does not run" >&2; exit 1; }
echo "$bin"
