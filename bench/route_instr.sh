#!/usr/bin/env bash
# route_instr.sh counts the instructions of one call of each route
# benchmark (BenchmarkRoute in route_test.go) under valgrind's callgrind:
# the difference between a run of N2 calls and one of N1, divided by
# N2-N1, so that start-up is left out. Instruction counts do not depend on
# the machine's load, as times do. It prints one line per benchmark and the
# ratio bound / (direct + call).
#
#   bench/route_instr.sh            # N1=1000 N2=3000
#   N1=3000 N2=9000 bench/route_instr.sh
set -euo pipefail
cd "$(dirname "$0")"
N1=${N1:-1000}
N2=${N2:-3000}
command -v valgrind >/dev/null || { echo "route_instr.sh: valgrind is required" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/bench.test" .

# instr NAME N prints the instructions of a run of N calls of Route/NAME.
instr() {
	GOMAXPROCS=1 GODEBUG=gcstoptheworld=1,asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$dir/cg.$1.$2" \
		"$dir/bench.test" -test.run '^$' -test.bench "^BenchmarkRoute/$1\$" -test.benchtime "$2x" -test.cpu 1 >/dev/null 2>&1
	awk '/^summary:/ {print $2}' "$dir/cg.$1.$2"
}

declare -A per
for name in direct call plain bound; do
	a=$(instr "$name" "$N1")
	b=$(instr "$name" "$N2")
	[ -n "$a" ] && [ -n "$b" ] || { echo "route_instr.sh: callgrind failed for $name" >&2; exit 1; }
	per[$name]=$(( (b - a) / (N2 - N1) ))
	printf '%-8s %8d instructions/call\n' "$name" "${per[$name]}"
done
awk -v b="${per[bound]}" -v d="${per[direct]}" -v c="${per[call]}" \
	'BEGIN { printf "bound/(direct+call) = %.2f\n", b / (d + c) }'
