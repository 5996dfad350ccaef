#!/usr/bin/env bash
# install-check.sh proves that `go install github.com/ferry-mcp/ferry/cmd/ferry@latest`
# works once the modules are published: it publishes the checkout's modules
# (root, entity, protomcp, openapi, cmd/ferry) at one version into a module proxy on
# disk, with their go.mod files as a release has them (no replace
# directives, each local module required at that version), then installs
# the command from it with GOWORK=off into a temporary GOBIN and runs
# `ferry -version` and `ferry help`. Only the Go module proxy is needed for
# the other dependencies.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VERSION=v0.1.0-ci
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PROXY=$WORK/proxy
BASE=github.com/ferry-mcp/ferry

# modules lists the published modules as DIR=PATH.
modules=(".=$BASE" "entity=$BASE/entity" "cmd/ferry=$BASE/cmd/ferry")
[ -f "$ROOT/protomcp/go.mod" ] && modules+=("protomcp=$BASE/protomcp")
[ -f "$ROOT/openapi/go.mod" ] && modules+=("openapi=$BASE/openapi")

publish() { # DIR PATH
  local dir=$1 path=$2 stage files
  stage=$WORK/stage/$path@$VERSION
  mkdir -p "$stage" "$PROXY/$path/@v"
  # The module's files: tracked by git, not in a nested module.
  files=$(cd "$ROOT/$dir" && git ls-files . | while read -r f; do
    d=$(dirname "$f")
    nested=
    while [ "$d" != . ]; do
      if [ -f "$ROOT/$dir/$d/go.mod" ]; then nested=1; break; fi
      d=$(dirname "$d")
    done
    [ -z "$nested" ] && echo "$f"
  done)
  (cd "$ROOT/$dir" && printf '%s\n' "$files" | tar -cf - -T - | tar -xf - -C "$stage")
  # Release go.mod: no replaces, local modules at VERSION.
  local edits=()
  for m in "${modules[@]}"; do
    local p=${m#*=}
    [ "$p" = "$path" ] && continue
    edits+=("-dropreplace=$p")
    if grep -q "^[[:space:]]*\(require \)\?$p " "$stage/go.mod"; then
      edits+=("-require=$p@$VERSION")
    fi
  done
  (cd "$stage" && GOWORK=off go mod edit "${edits[@]}" go.mod)
  cp "$stage/go.mod" "$PROXY/$path/@v/$VERSION.mod"
  printf '{"Version":"%s","Time":"2026-01-01T00:00:00Z"}\n' "$VERSION" >"$PROXY/$path/@v/$VERSION.info"
  echo "$VERSION" >"$PROXY/$path/@v/list"
  (cd "$WORK/stage" && zip -qrD "$PROXY/$path/@v/$VERSION.zip" "$path@$VERSION")
}

for m in "${modules[@]}"; do
  publish "${m%%=*}" "${m#*=}"
done

# The checksums of the local modules are new: fill go.sum from the proxy.
export GOWORK=off GOFLAGS= GONOSUMDB=$BASE
export GOPROXY="file://$PROXY,${GOPROXY:-https://proxy.golang.org}"
export GOBIN=$WORK/bin
cd "$WORK"
go install "$BASE/cmd/ferry@latest"
"$GOBIN/ferry" -version
"$GOBIN/ferry" help >/dev/null
echo "install-check: go install $BASE/cmd/ferry@latest works from a published $VERSION"
