#!/usr/bin/env bash
# discovery_instr.sh counts the instructions of one call of each discovery
# benchmark (BenchmarkDiscovery in discovery_test.go) under valgrind's
# callgrind, as route_instr.sh does: the difference between a run of N2
# calls and one of N1, divided by N2-N1. It prints one line per benchmark
# and the ratio via / direct (a call through call_tool against the same
# call made directly; the target is at most 1.1).
#
#   bench/discovery_instr.sh            # N1=200 N2=600
set -euo pipefail
cd "$(dirname "$0")"
N1=${N1:-200}
N2=${N2:-600}
command -v valgrind >/dev/null || { echo "discovery_instr.sh: valgrind is required" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/bench.test" .

instr() {
	GOMAXPROCS=1 GODEBUG=gcstoptheworld=1,asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$dir/cg.$1.$2" \
		"$dir/bench.test" -test.run '^$' -test.bench "^BenchmarkDiscovery/$1\$" -test.benchtime "$2x" -test.cpu 1 >/dev/null 2>&1
	awk '/^summary:/ {print $2}' "$dir/cg.$1.$2"
}

declare -A per
for name in direct via; do
	a=$(instr "$name" "$N1")
	b=$(instr "$name" "$N2")
	[ -n "$a" ] && [ -n "$b" ] || { echo "discovery_instr.sh: callgrind failed for $name" >&2; exit 1; }
	per[$name]=$(( (b - a) / (N2 - N1) ))
	printf '%-8s %8d instructions/call\n' "$name" "${per[$name]}"
done
awk -v v="${per[via]}" -v d="${per[direct]}" 'BEGIN { printf "via/direct = %.3f\n", v / d }'
