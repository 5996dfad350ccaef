#!/usr/bin/env bash
# compare.sh measures two revisions of Ferry the same way and prints their
# figures side by side, with B/A for each:
#
#   bench/compare.sh REV_A REV_B        # e.g. bench/compare.sh main HEAD
#
# For each revision it adds a detached git worktree in a temporary
# directory, lays this checkout's harness (bench/) over the revision's
# bench/, so both sides are measured by the same code, and builds it against
# that revision's root package. If this harness's Ferry adapter (ferry.go)
# does not build against the revision's API, the revision's own adapter is
# used instead, and the script says so. It then counts instructions per
# tools/call under callgrind for each session kind (deterministic, so one
# run each) and runs the in-process allocation benchmarks COUNT times,
# alternating the revisions; with RPS=1 it also runs the req/s matrix at
# c=16 (noisy on a shared machine).
#
# Environment:
#   IMPLS     implementations to measure (default: ferry ferrytyped limit floor)
#   INSTR_N1, INSTR_N2  calls in callgrind's two runs (default 1000 and 3000)
#   LIVE      stateless sessions of the live-session line (default 20000; 0 skips it)
#   INFLIGHT  stdio requests in flight (default 64)
#   COUNT     repetitions of the allocation benchmarks (default 5)
#   RPS       1 to run the req/s matrix too (default 0); REPS, DUR as in run.sh
#   OUT       directory for raw results (default: a new temporary directory)
#   KEEP      1 to keep the worktrees (default: removed on exit)
set -euo pipefail
[[ $# == 2 ]] || { echo "usage: $0 REV_A REV_B" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# Both revisions build the bench module on its own (its replace directives),
# whether or not the revision has a go.work.
export GOWORK=off
repo=$(git -C "$here" rev-parse --show-toplevel)

IMPLS=${IMPLS:-"ferry ferrytyped limit floor"}
INSTR_N1=${INSTR_N1:-1000}
INSTR_N2=${INSTR_N2:-3000}
LIVE=${LIVE:-20000}
INFLIGHT=${INFLIGHT:-64}
COUNT=${COUNT:-5}
RPS=${RPS:-0}
REPS=${REPS:-3}
DUR=${DUR:-3s}
OUT=${OUT:-$(mktemp -d -t ferry-compare.XXXXXX)}
mkdir -p "$OUT"

log() { echo "compare.sh: $*" >&2; }
command -v valgrind >/dev/null || { log "valgrind is needed for the instruction counts"; exit 1; }

pin0=() server_core=1
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null && taskset -c 1 true 2>/dev/null; then
	pin0=(taskset -c 0)
else
	server_core=-1
fi

worktrees=()
cleanup() {
	[[ ${KEEP:-0} == 1 ]] && return
	local wt
	for wt in "${worktrees[@]}"; do
		git -C "$repo" worktree remove --force "$wt" 2>/dev/null || true
	done
}
trap cleanup EXIT

# build LABEL REV: a worktree of REV with this harness, built into $OUT/LABEL.
build() {
	local label=$1 rev=$2 wt=$OUT/$1.src dst=$OUT/$1
	mkdir -p "$dst"
	git -C "$repo" worktree add --detach --quiet "$wt" "$rev"
	worktrees+=("$wt")
	git -C "$repo" rev-parse "$rev" >"$dst/rev"
	mkdir -p "$wt/bench"
	(cd "$here" && tar cf - --exclude=./bin .) | (cd "$wt/bench" && tar xf -)
	local b=(env GOFLAGS=-mod=mod go build -o "$dst/" ./cmd/server ./cmd/load)
	if ! (cd "$wt/bench" && "${b[@]}" 2>"$dst/build.err"); then
		if git -C "$repo" cat-file -e "$rev:bench/ferry.go" 2>/dev/null; then
			log "$label: this harness's ferry.go does not build against $rev; using $rev's own"
			git -C "$repo" show "$rev:bench/ferry.go" >"$wt/bench/ferry.go"
		fi
		(cd "$wt/bench" && "${b[@]}") || { cat "$dst/build.err" >&2; exit 1; }
	fi
	(cd "$wt/bench" && GOFLAGS=-mod=mod go test -c -o "$dst/bench.test" .)
	: >"$dst/results.txt"
	: >"$dst/bench.txt"
}

# has KIND IMPL reports whether IMPL has that kind of session (see run.sh).
has() {
	case $1:$2 in
	stateful:limit | stateful:floor | stdio:floor) return 1 ;;
	modern:ferry | modern:ferrytyped | modern:limit) return 0 ;;
	modern:*) return 1 ;;
	live:ferry | live:ferrytyped) [[ $LIVE -gt 0 ]] ;;
	live:*) return 1 ;;
	esac
}

# instr LABEL: instructions per call for every session kind.
instr() {
	local dst=$OUT/$1 impl
	local run=("${pin0[@]}" "$dst/load" -server "$dst/server" -server-core "$server_core" -out "$dst/results.txt"
		-mode instr -n1 "$INSTR_N1" -n2 "$INSTR_N2" -inflight "$INFLIGHT")
	for impl in $IMPLS; do
		"${run[@]}" -impl "$impl" >&2
		if has stateful "$impl"; then "${run[@]}" -stateful -impl "$impl" >&2; fi
		if has stdio "$impl"; then "${run[@]}" -transport stdio -impl "$impl" >&2; fi
		if has modern "$impl"; then "${run[@]}" -protocol 2026-07-28 -impl "$impl" >&2; fi
		if has live "$impl"; then "${run[@]}" -live "$LIVE" -impl "$impl" >&2; fi
	done
}

# rps LABEL: the req/s matrix at c=16.
rps() {
	local dst=$OUT/$1 impl
	local run=("${pin0[@]}" "$dst/load" -server "$dst/server" -server-core "$server_core" -out "$dst/results.txt" -d "$DUR")
	for impl in $IMPLS; do
		"${run[@]}" -mode http -impl "$impl" -c 16 >&2
		if has stateful "$impl"; then "${run[@]}" -mode http -stateful -impl "$impl" -c 16 >&2; fi
		if has modern "$impl"; then "${run[@]}" -mode http -protocol 2026-07-28 -impl "$impl" -c 16 >&2; fi
		if has stdio "$impl"; then "${run[@]}" -mode stdio -impl "$impl" -inflight "$INFLIGHT" >&2; fi
	done
}

log "building $1 and $2 into $OUT"
build A "$1"
build B "$2"

log "instructions per call under callgrind ($INSTR_N1 and $INSTR_N2 calls)"
instr A
instr B

log "allocation benchmarks, $COUNT counts, alternating"
benchre="ToolsCall/^($(echo $IMPLS | tr ' ' '|'))(_modern)?\$"
for _ in $(seq "$COUNT"); do
	for side in A B; do
		GOMAXPROCS=1 "${pin0[@]}" "$OUT/$side/bench.test" -test.run '^$' -test.bench "$benchre" -test.benchmem \
			-test.count 1 -test.benchtime 1s >>"$OUT/$side/bench.txt"
	done
done

if [[ $RPS == 1 ]]; then
	log "req/s: $REPS reps, alternating"
	for _ in $(seq "$REPS"); do
		rps A
		rps B
	done
fi

log "raw results in $OUT"
echo "A = $1 ($(cut -c1-12 "$OUT/A/rev")), B = $2 ($(cut -c1-12 "$OUT/B/rev"))"
"$OUT/B/load" -mode compare -a "$OUT/A" -b "$OUT/B" -label-a "$1" -label-b "$2"
