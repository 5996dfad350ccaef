#!/usr/bin/env bash
# run.sh builds the benchmark, runs every measurement and prints a summary.
# It ends with one line:
#   ferry/limit=R1 ferry/gosdk=R2 ferry/mcpgo=R3 allocs=N bytes=B
#
# Environment:
#   IMPLS   implementations to run (default: ferry ferrytyped gosdk mcpgo limit;
#           ferrytyped is Ferry with typed, validated tools)
#   REPS    repetitions of the HTTP and stdio runs (default 5)
#   DUR     measurement duration per run (default 3s), WARMUP (default 500ms)
#   CONC    HTTP concurrency levels (default "1 16 64")
#   INFLIGHT stdio requests in flight (default 64)
#   SESSIONS stateful sessions to open (default 10000)
#   OUT     directory for raw results (default: a new temporary directory)
set -euo pipefail
cd "$(dirname "$0")"

REPS=${REPS:-5}
DUR=${DUR:-3s}
WARMUP=${WARMUP:-500ms}
CONC=${CONC:-1 16 64}
INFLIGHT=${INFLIGHT:-64}
SESSIONS=${SESSIONS:-10000}
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

IMPLS=${IMPLS:-"ferry ferrytyped gosdk mcpgo limit"}

log "building into $OUT"
go build -o "$OUT/" ./cmd/server ./cmd/load
go test -c -o "$OUT/bench.test" .
load=("${pin0[@]}" "$OUT/load" -server "$OUT/server" -server-core "$server_core" -out "$results" -warmup "$WARMUP" -d "$DUR")

log "correctness check"
"$OUT/bench.test" -test.run TestTools >&2

log "HTTP matrix: $REPS reps x c=($CONC) x ($IMPLS), $DUR each"
for rep in $(seq "$REPS"); do
	for c in $CONC; do
		for impl in $IMPLS; do
			"${load[@]}" -mode http -impl "$impl" -c "$c" >&2
		done
	done
done

log "stdio: $REPS reps x ($IMPLS), $INFLIGHT in flight"
for rep in $(seq "$REPS"); do
	for impl in $IMPLS; do
		"${load[@]}" -mode stdio -impl "$impl" -inflight "$INFLIGHT" >&2
	done
done

log "allocation benchmarks"
GOMAXPROCS=1 "${pin0[@]}" "$OUT/bench.test" -test.run '^$' -test.bench ToolsCall -test.benchmem \
	-test.count 3 -test.benchtime 1s | tee "$benchout" >&2

log "session memory: $SESSIONS stateful sessions each"
for impl in $IMPLS; do
	[[ $impl == limit ]] && continue # the limit keeps no sessions
	"${load[@]}" -mode sessions -impl "$impl" -n "$SESSIONS" >&2
done

log "raw results in $OUT"
"$OUT/load" -mode report -out "$results" -bench "$benchout"
