#!/usr/bin/env bash
# pathfiles.sh lists the root files whose code a 2026-07-28 tools/call over
# HTTP runs from ServeHTTP up to the tool's handler, with the statements it
# runs in each: the path's files of docs/architecture.md. It builds
# cmd/pathfiles with coverage of the root package and reads its counters,
# and fails when the path runs more than the 10 files issue 20 allows.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -cover -covermode=atomic -coverpkg=github.com/ferry-mcp/ferry,github.com/ferry-mcp/ferry/bench/cmd/pathfiles -o "$dir/pathfiles" ./cmd/pathfiles
mkdir "$dir/cov"
GOCOVERDIR=$dir/cov "$dir/pathfiles"
go tool covdata textfmt -i="$dir/cov" -o "$dir/profile.txt"
# A profile line: import/path/file.go:start.col,end.col statements count
awk '
NR > 1 {
	split($1, loc, ":"); n = split(loc[1], p, "/")
	if (loc[1] !~ /^github.com\/ferry-mcp\/ferry\/[^\/]+\.go$/ || $3 == 0) next
	stmts[p[n]] += $2
}
END { for (f in stmts) { printf "%4d %s\n", stmts[f], f; files++ }; printf "files: %d\n", files }' "$dir/profile.txt" | sort -k2 | tee "$dir/files.txt"
files=$(awk '$1 == "files:" { print $2 }' "$dir/files.txt")
if [ "$files" -gt 10 ]; then
  echo "pathfiles.sh: a tools/call runs $files root files up to the handler; at most 10" >&2
  exit 1
fi
