#!/usr/bin/env bash
# fresh-clone.sh clones the repository (its committed HEAD) into a temporary
# directory and runs the README's two commands there, as a newcomer would, so
# that a missing install step or an uncommitted file shows:
#
#   1. the first indented code line of the README, which must be
#      `go run ./cmd/ferry demo ...`, run with --http 127.0.0.1:0 and a
#      temporary --db added, until it answers server/discover and tools/list
#      (with curl and the key it prints) and refuses a request without the
#      key; then it is stopped with SIGTERM and must exit 0;
#   2. the second indented code block's first line (`go test ./...`).
#
# Usage: tools/fresh-clone.sh [REPO]   (REPO defaults to this repository)
set -euo pipefail

src=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-fresh-clone.XXXXXX")
demo_pid=
cleanup() {
  if [ -n "$demo_pid" ] && kill -0 "$demo_pid" 2>/dev/null; then
    kill -KILL -- "-$demo_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

git clone -q --no-hardlinks "$src" "$tmp/repo"
cd "$tmp/repo"
echo "fresh-clone: cloned $(git rev-parse --short HEAD) of $src into $tmp/repo"

# The first line of each of the README's first two indented code blocks.
mapfile -t cmds < <(awk '
  /^(    |\t)/ { if (!inblock) { sub(/^(    |\t)/, ""); print; if (++n == 2) exit } inblock = 1; next }
  { inblock = 0 }' README.md)
if [ "${#cmds[@]}" -lt 2 ]; then
  echo "fresh-clone: README.md has fewer than two indented code blocks" >&2
  exit 1
fi
demo=${cmds[0]} tests=${cmds[1]}
case "$demo" in
  "go run ./cmd/ferry demo"*) ;;
  *) echo "fresh-clone: the README's first command is \`$demo\`, not \`go run ./cmd/ferry demo\`" >&2; exit 1 ;;
esac

echo "fresh-clone: \$ $demo --http 127.0.0.1:0 --db $tmp/demo.db"
set -m # the demo gets a process group of its own: go run and the program it builds
# shellcheck disable=SC2086 # the README's command, split into words as a shell would
$demo --http 127.0.0.1:0 --db "$tmp/demo.db" 2>"$tmp/demo.log" &
demo_pid=$!
set +m

url= key=
for _ in $(seq 600); do # go run compiles first: up to 5 minutes on a cold cache
  url=$(sed -n 's/.*listening on \(http:[^ ]*\) .*/\1/p' "$tmp/demo.log" | head -1)
  key=$(sed -n 's/.*API key: \([^ ]*\) .*/\1/p' "$tmp/demo.log" | head -1)
  [ -n "$url" ] && [ -n "$key" ] && break
  if ! kill -0 "$demo_pid" 2>/dev/null; then
    echo "fresh-clone: the demo exited before it listened:" >&2
    cat "$tmp/demo.log" >&2
    exit 1
  fi
  sleep 0.5
done
if [ -z "$url" ] || [ -z "$key" ]; then
  echo "fresh-clone: no listening line and key within 5 minutes:" >&2
  cat "$tmp/demo.log" >&2
  exit 1
fi
echo "fresh-clone: the demo listens on $url"

# post METHOD [KEY]: one 2026-07-28 request to /mcp; prints the status, then the body.
post() {
  local meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
  local auth=()
  [ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
  curl -sS --max-time 10 -w '\n%{http_code}' "$url/mcp" "${auth[@]}" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H "Mcp-Method: $1" \
    -d '{"jsonrpc":"2.0","id":1,"method":"'"$1"'","params":{'"$meta"'}}'
}
check() { # NAME WANT-STATUS WANT-TEXT OUTPUT
  local status=${4##*$'\n'} body=${4%$'\n'*}
  if [ "$status" != "$2" ] || ! grep -q -- "$3" <<<"$body"; then
    echo "fresh-clone: $1: status $status, want $2 and a body with $3: $body" >&2
    exit 1
  fi
  echo "fresh-clone: $1: $status"
}
check "server/discover" 200 '"supportedVersions"' "$(post server/discover "$key")"
check "tools/list" 200 '"place_order"' "$(post tools/list "$key")"
check "tools/list without the key" 401 '' "$(post tools/list)"

# SIGTERM to the program go run built (go run itself would die of it), as
# a service manager stops it; go run then exits with its status.
child=$(ps -o pid= --ppid "$demo_pid" | head -1 | tr -d ' ')
if [ -z "$child" ]; then
  echo "fresh-clone: go run has no child process to stop" >&2
  exit 1
fi
kill -TERM "$child"
rc=0
wait "$demo_pid" || rc=$?
demo_pid=
if [ "$rc" != 0 ] || ! grep -q 'ferry demo: stopping' "$tmp/demo.log"; then
  echo "fresh-clone: the demo exited $rc after SIGTERM, not 0 after stopping gracefully:" >&2
  cat "$tmp/demo.log" >&2
  exit 1
fi
echo "fresh-clone: the demo stopped"

echo "fresh-clone: \$ $tests"
bash -c "$tests"
