#!/usr/bin/env bash
# lint.sh runs go vet, a gofmt check and staticcheck over the module in the
# current directory (default: the repo root). staticcheck is pinned and
# installed into .tmp/bin of the repo on first use.
set -euo pipefail

# 2026.2.2; supports Go 1.26.
STATICCHECK_VERSION=v0.8.2

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=$ROOT/.tmp/bin
if ! "$BIN/staticcheck" -version 2>/dev/null | grep -qF "(${STATICCHECK_VERSION#v})"; then
  echo "lint.sh: installing staticcheck@$STATICCHECK_VERSION into $BIN" >&2
  GOBIN=$BIN go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi

rc=0
echo "go vet ./..."
go vet ./... || rc=1
echo "gofmt -l ."
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
  printf 'not gofmt-ed:\n%s\n' "$unformatted"
  rc=1
fi
echo "staticcheck ./..."
"$BIN/staticcheck" ./... || rc=1
exit "$rc"
