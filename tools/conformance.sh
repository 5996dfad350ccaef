#!/usr/bin/env bash
# conformance.sh runs the official MCP server conformance suite
# (@modelcontextprotocol/conformance, pinned in tools/npm) against the
# ./conformance/everything fixture server over stateful Streamable HTTP.
#
# Usage: tools/conformance.sh [--bin PATH] [--out DIR] [--scenario NAME] [-- SERVER-ARGS...]
#   --bin PATH       run this server binary instead of building ./conformance/everything
#   --out DIR        keep results in DIR (default: a temp dir, removed if all checks pass)
#   --scenario NAME  run one scenario instead of the whole suite (--suite all)
#   SERVER-ARGS      extra flags for the server, after "-http 127.0.0.1:PORT"
#
# Prints one line per scenario and a final line "N passed, M failed". Exits 1 if
# any check failed or a scenario produced no result.
set -euo pipefail

# conformance 0.1.16, --suite all: 32 scenarios. The reference server scores 44
# checks; fewer is only noted, since some checks are INFO for valid choices
# (server-sse-multiple-streams has 1 check, not 2, if POSTs are answered as JSON).
EXPECTED_SCENARIOS=32 EXPECTED_CHECKS=44

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN="" OUT="" SCENARIO=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=${2:?--bin needs a path}; shift 2 ;;
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    --scenario) SCENARIO=${2:?--scenario needs a name}; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "conformance.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
fail() { echo "conformance.sh: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

NODE=$("$ROOT/tools/node22.sh") || fail "no node >= 22"
CLI=$("$ROOT/tools/npm.sh")/node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -f "$CLI" ] || fail "missing $CLI"

if [ -n "$OUT" ]; then
  mkdir -p "$OUT" && WORK=$(cd "$OUT" && pwd)
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/ferry-conformance.XXXXXX")
fi
SERVER_PID="" OK=0
cleanup() {
  if [ -n "$SERVER_PID" ]; then
    # setsid made the server a process group leader: stop the whole group.
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 20); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  if [ "$OK" = 1 ] && [ -z "$OUT" ]; then rm -rf "$WORK"; else echo "conformance.sh: results kept in $WORK" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "$BIN" ]; then
  BIN=$WORK/everything
  (cd "$ROOT" && go build -o "$BIN" ./conformance/everything) || fail "go build ./conformance/everything failed"
fi
PORT=$("$NODE" -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
URL=http://127.0.0.1:$PORT/mcp

setsid "$BIN" -http "127.0.0.1:$PORT" "$@" >"$WORK/server.log" 2>&1 </dev/null &
SERVER_PID=$!
for i in $(seq 100); do # any HTTP answer within 20s counts as up
  kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 20 "$WORK/server.log" >&2; SERVER_PID=""; fail "the server exited"; }
  "$NODE" -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(1000) }).then(() => process.exit(0), () => process.exit(1))' "$URL" && break
  [ "$i" -lt 100 ] || fail "nothing answers at $URL"
  sleep 0.2
done

if [ -n "$SCENARIO" ]; then
  EXPECTED_SCENARIOS=1 EXPECTED_CHECKS=0 select=(--scenario "$SCENARIO")
else
  select=(--suite all)
fi
echo "conformance.sh: $("$NODE" --version), suite against $URL (log: $WORK/conformance.log)" >&2
timeout -k 10 900 "$NODE" "$CLI" server --url "$URL" "${select[@]}" -o "$WORK/results" >"$WORK/conformance.log" 2>&1 ||
  echo "conformance.sh: the conformance CLI exited with status $?" >&2

# Aggregate results/<scenario>-<timestamp>/checks.json: one line per scenario.
AGGREGATE='
const fs = require("node:fs"), path = require("node:path");
const [dir, expected, expectedChecks] = process.argv.slice(1).map((a, i) => (i ? Number(a) : a));
const scenarios = new Map();
for (const f of fs.readdirSync(dir, { recursive: true })) {
  if (path.basename(f) !== "checks.json") continue;
  const name = path.basename(path.dirname(f)).replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
  let checks;
  try { checks = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")); }
  catch (e) { checks = [{ name, status: "FAILURE", errorMessage: `unreadable checks.json: ${e.message}` }]; }
  scenarios.set(name, [...(scenarios.get(name) ?? []), ...checks]);
}
let passed = 0, failed = 0;
for (const [name, checks] of [...scenarios].sort(([a], [b]) => a.localeCompare(b))) {
  const by = (s) => checks.filter((c) => c.status === s);
  const [p, f, w] = [by("SUCCESS"), by("FAILURE"), by("WARNING")];
  passed += p.length; failed += f.length;
  const warn = w.length ? `, ${w.length} warning(s)` : "";
  console.log(`${f.length ? "FAIL" : "ok  "} ${name.padEnd(30)} ${p.length} passed, ${f.length} failed${warn}`);
  for (const c of f) console.log(`       ${c.name}: ${(c.errorMessage ?? c.description ?? "").slice(0, 300)}`);
}
if (scenarios.size < expected) {
  console.log(`FAIL only ${scenarios.size} of ${expected} scenarios produced results (see conformance.log)`);
  failed += expected - scenarios.size;
} else if (passed < expectedChecks) {
  console.log(`FAIL only ${passed} checks passed; the suite has ${expectedChecks} for the fixture server`);
  failed += expectedChecks - passed;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
'
mkdir -p "$WORK/results"
"$NODE" -e "$AGGREGATE" "$WORK/results" "$EXPECTED_SCENARIOS" "$EXPECTED_CHECKS" && OK=1
[ "$OK" = 1 ]
