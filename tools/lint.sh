#!/usr/bin/env bash
# lint.sh runs go vet, a gofmt check and golangci-lint (with the rules of
# .golangci.yml: staticcheck with all its checks, forbidigo, containedctx,
# errorlint, gosec and the standard set) over the module in the current
# directory (default: the repo root). golangci-lint is pinned and installed
# into .tmp/bin of the repo with `go install` on first use; it runs
# staticcheck itself, so one set of exclusions (in .golangci.yml) serves.
# Every step runs; it exits non-zero if any failed.
set -euo pipefail

# v2.15.0 (2026-10-16) is built for Go 1.26 (its go.mod says go 1.26.0, and it
# loads packages with the go command it finds), so it analyses Go 1.26 code.
GOLANGCI_LINT_VERSION=v2.15.0

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=$ROOT/.tmp/bin
if [ "$("$BIN/golangci-lint" version --short 2>/dev/null)" != "${GOLANGCI_LINT_VERSION#v}" ]; then
  echo "lint.sh: installing golangci-lint@$GOLANGCI_LINT_VERSION into $BIN" >&2
  GOBIN=$BIN go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_LINT_VERSION"
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
echo "golangci-lint run ./..."
"$BIN/golangci-lint" run --allow-parallel-runners --config "$ROOT/.golangci.yml" --max-issues-per-linter 0 --max-same-issues 0 ./... || rc=1
exit "$rc"
