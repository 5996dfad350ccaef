#!/usr/bin/env bash
# instr.sh counts the instructions of one call of each SQLite benchmark
# under valgrind's callgrind, which, unlike time, does not move with the
# machine's load: each benchmark runs twice, with N1 and N2 calls, and the
# difference divided by N2-N1 is one call (set-up and seeding cancel out).
# PostgreSQL is left out: its server's work runs in another process.
#
#   cd bench/entity && ./instr.sh            # N1=200 N2=600 by default
set -euo pipefail
cd "$(dirname "$0")"
N1=${N1:-200}
N2=${N2:-600}
command -v valgrind >/dev/null || { echo "instr.sh: valgrind is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/entity.test" .
count() { # BENCH N: instructions of the whole run
  # Go's asynchronous preemption signals upset callgrind; one P and a
  # stop-the-world GC keep the count steady.
  GOMAXPROCS=1 GODEBUG=gcstoptheworld=1,asyncpreemptoff=1 \
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$tmp/entity.test" \
    -test.run '^$' -test.bench "^Benchmark$1\$" -test.benchtime "${2}x" >/dev/null 2>&1
  callgrind_annotate "$tmp/cg.out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !done { gsub(",", "", $1); print $1; done = 1 }'
}
declare -A per
for b in ListProducts GetProduct; do
  for side in entity hand handtx; do
    name="$b/sqlite/$side"
    a=$(count "$name" "$N1")
    c=$(count "$name" "$N2")
    per[$name]=$(( (c - a) / (N2 - N1) ))
    echo "$name: ${per[$name]} instructions/call"
  done
  for side in hand handtx; do
    awk -v e="${per[$b/sqlite/entity]}" -v h="${per[$b/sqlite/$side]}" -v n="$b/sqlite" -v s="$side" \
      'BEGIN { printf "%s: entity/%s %.2fx instructions\n", n, s, e / h }'
  done
done
