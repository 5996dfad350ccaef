#!/usr/bin/env bash
# run.sh builds the benchmark, runs every measurement and prints a summary.
# It ends with three lines:
#   validated: ferrytyped/limit=R1 ferrytyped/gosdk=R2 ferrytyped/mcpgo=R3 allocs=N bytes=B
#   instr: ferry/limit[stateless]=X ... ferry/floor=Y cpu:ferry/floor=Z
#   ferry/limit=R1 ferry/gosdk=R2 ferry/mcpgo=R3 allocs=N bytes=B
#
# Environment:
#   IMPLS   implementations to run (default: ferry ferrytyped gosdk mcpgo limit floor;
#           ferrytyped is Ferry with typed, validated tools, floor a bare net/http
#           handler that writes a constant answer)
#   REPS    repetitions of the HTTP and stdio runs (default 5)
#   DUR     measurement duration per run (default 3s), WARMUP (default 500ms)
#   CONC    HTTP concurrency levels of stateless legacy sessions (default "1 16 64")
#   VARIANT_CONC concurrency of the stateful, 2026-07-28 and live-session runs (default 16)
#   LIVE    stateless sessions kept live in the live-session runs (default 20000;
#           Ferry's verified-session memo holds 4096)
#   INFLIGHT stdio requests in flight (default 64)
#   SESSIONS stateful sessions to open (default 10000)
#   INSTR   1 to count instructions per call under valgrind's callgrind (default 1
#           if valgrind is installed), INSTR_N1 and INSTR_N2 the calls of its two
#           runs (default 1000 and 3000)
#   OUT     directory for raw results (default: a new temporary directory)
set -euo pipefail
cd "$(dirname "$0")"

REPS=${REPS:-5}
DUR=${DUR:-3s}
WARMUP=${WARMUP:-500ms}
CONC=${CONC:-1 16 64}
INFLIGHT=${INFLIGHT:-64}
SESSIONS=${SESSIONS:-10000}
VARIANT_CONC=${VARIANT_CONC:-16}
LIVE=${LIVE:-20000}
INSTR_N1=${INSTR_N1:-1000}
INSTR_N2=${INSTR_N2:-3000}
if [[ -z ${INSTR:-} ]]; then
	INSTR=0
	command -v valgrind >/dev/null && INSTR=1
fi
OUT=${OUT:-$(mktemp -d -t ferry-bench.XXXXXX)}
mkdir -p "$OUT"
results=$OUT/results.txt
benchout=$OUT/bench.txt
: >"$results"

log() { echo "run.sh: $*" >&2; }

# Pin the generator to core 0 and servers to core 1 when taskset works.
pin0=() server_core=1
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null && taskset -c 1 true 2>/dev/null; then
	pin0=(taskset -c 0)
else
	log "taskset unavailable or fewer than 2 cores: running unpinned"
	server_core=-1
fi

IMPLS=${IMPLS:-"ferry ferrytyped gosdk mcpgo limit floor"}

# impls_with KIND prints the implementations in IMPLS that have that kind
# of session: stateful (sessions kept in the server), modern (2026-07-28),
# live (stateless session ids that the server verifies), stdio.
impls_with() {
	local impl
	for impl in $IMPLS; do
		case $1:$impl in
		stateful:limit | stateful:floor | stdio:floor) ;;
		modern:ferry | modern:ferrytyped | modern:limit) echo "$impl" ;;
		modern:*) ;;
		live:ferry | live:ferrytyped) echo "$impl" ;;
		live:*) ;;
		*) echo "$impl" ;;
		esac
	done
}

log "building into $OUT"
go build -o "$OUT/" ./cmd/server ./cmd/load
go test -c -o "$OUT/bench.test" .
load=("${pin0[@]}" "$OUT/load" -server "$OUT/server" -server-core "$server_core" -out "$results" -warmup "$WARMUP" -d "$DUR")

log "correctness check"
"$OUT/bench.test" -test.run TestTools >&2

log "HTTP matrix: $REPS reps x c=($CONC) x ($IMPLS), $DUR each; stateful, 2026-07-28 and $LIVE live sessions at c=$VARIANT_CONC"
for rep in $(seq "$REPS"); do
	for c in $CONC; do
		for impl in $IMPLS; do
			"${load[@]}" -mode http -impl "$impl" -c "$c" >&2
		done
	done
	for impl in $(impls_with stateful); do
		"${load[@]}" -mode http -stateful -impl "$impl" -c "$VARIANT_CONC" >&2
	done
	for impl in $(impls_with modern); do
		"${load[@]}" -mode http -protocol 2026-07-28 -impl "$impl" -c "$VARIANT_CONC" >&2
	done
	for impl in $(impls_with live); do
		"${load[@]}" -mode http -live "$LIVE" -impl "$impl" -c "$VARIANT_CONC" >&2
	done
done

log "stdio: $REPS reps x ($(impls_with stdio | xargs)), $INFLIGHT in flight"
for rep in $(seq "$REPS"); do
	for impl in $(impls_with stdio); do
		"${load[@]}" -mode stdio -impl "$impl" -inflight "$INFLIGHT" >&2
	done
done

if [[ $INSTR == 1 ]]; then
	# Deterministic where req/s on a shared machine is not: each server runs
	# under callgrind for INSTR_N1 and then INSTR_N2 calls from one client,
	# and the difference per call leaves start-up and handshakes out.
	log "instructions per call under callgrind: $INSTR_N1 and $INSTR_N2 calls per configuration"
	instr=("${pin0[@]}" "$OUT/load" -server "$OUT/server" -server-core "$server_core" -out "$results"
		-mode instr -n1 "$INSTR_N1" -n2 "$INSTR_N2" -inflight "$INFLIGHT")
	for impl in $IMPLS; do "${instr[@]}" -impl "$impl" >&2; done
	for impl in $(impls_with stateful); do "${instr[@]}" -stateful -impl "$impl" >&2; done
	for impl in $(impls_with stdio); do "${instr[@]}" -transport stdio -impl "$impl" >&2; done
	for impl in $(impls_with modern); do "${instr[@]}" -protocol 2026-07-28 -impl "$impl" >&2; done
	for impl in $(impls_with live); do "${instr[@]}" -live "$LIVE" -impl "$impl" >&2; done
else
	log "valgrind not found or INSTR=0: no instruction counts"
fi

log "allocation benchmarks"
GOMAXPROCS=1 "${pin0[@]}" "$OUT/bench.test" -test.run '^$' -test.bench ToolsCall -test.benchmem \
	-test.count 3 -test.benchtime 1s | tee "$benchout" >&2

log "session memory: $SESSIONS stateful sessions each"
for impl in $(impls_with stateful); do # the limit and the floor keep no sessions
	"${load[@]}" -mode sessions -impl "$impl" -n "$SESSIONS" >&2
done

log "raw results in $OUT"
"$OUT/load" -mode report -out "$results" -bench "$benchout"
