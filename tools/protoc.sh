#!/usr/bin/env bash
# protoc.sh generates the committed protobuf code, or checks that it is
# current. It installs the pinned toolchain on first use:
#   protoc          Debian package protobuf-compiler (apt-get, when root)
#   protoc-gen-go          google.golang.org/protobuf  v1.36.12  (go install)
#   protoc-gen-connect-go  connectrpc.com/connect      v1.21.1   (go install)
#   protoc-gen-ferry       built from protomcp/cmd/protoc-gen-ferry
# into .tmp/bin. buf/validate, google/api/field_behavior and descriptor.proto
# come from the Go modules that register them (protomcp/internal/cmd/
# protodeps) as a descriptor set, so no include directory, vendored .proto
# text or Buf Schema Registry is needed.
#
#   tools/protoc.sh            regenerate in place
#   tools/protoc.sh check      regenerate into a temporary directory, with
#                              the golden files of protoc-gen-ferry's tests
#                              (in process, and through protoc for the
#                              single-file cases), and fail if anything
#                              committed differs; also build the example
#                              generated with simple and with direct=false
#   tools/protoc.sh buf        install buf (a large build, so not in CI) and
#                              check that buf generate with protoc-gen-ferry
#                              writes the golden files of the cases that need
#                              no Buf Schema Registry module
set -euo pipefail

PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_CONNECT_GO_VERSION=v1.21.1
BUF_VERSION=v1.75.0

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=$ROOT/.tmp/bin
mkdir -p "$BIN"

install_tools() {
  if ! command -v protoc >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "protoc.sh: installing protobuf-compiler with apt-get" >&2
      export DEBIAN_FRONTEND=noninteractive
      apt-get install -y -q protobuf-compiler >&2 ||
        { apt-get update -q >&2 && apt-get install -y -q protobuf-compiler >&2; }
    else
      echo "protoc.sh: protoc not found; install the protobuf-compiler package" >&2
      return 1
    fi
  fi
  if [ "$("$BIN/protoc-gen-go" --version 2>/dev/null)" != "protoc-gen-go $PROTOC_GEN_GO_VERSION" ]; then
    echo "protoc.sh: installing protoc-gen-go@$PROTOC_GEN_GO_VERSION into $BIN" >&2
    GOBIN=$BIN go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION"
  fi
  if [ "$("$BIN/protoc-gen-connect-go" --version 2>/dev/null)" != "${PROTOC_GEN_CONNECT_GO_VERSION#v}" ]; then
    echo "protoc.sh: installing protoc-gen-connect-go@$PROTOC_GEN_CONNECT_GO_VERSION into $BIN" >&2
    GOBIN=$BIN go install "connectrpc.com/connect/cmd/protoc-gen-connect-go@$PROTOC_GEN_CONNECT_GO_VERSION"
  fi
  (cd "$ROOT/protomcp" && go build -o "$BIN/protoc-gen-ferry" ./cmd/protoc-gen-ferry)
  (cd "$ROOT/protomcp" && go run ./internal/cmd/protodeps "$ROOT/.tmp/protodeps.binpb")
}

# run_protoc OUT MODULE INCLUDE FILE PLUGIN... runs protoc on FILE (relative
# to INCLUDE) writing each PLUGIN's output under OUT by Go import path
# within MODULE.
run_protoc() {
  local out=$1 module=$2 include=$3 file=$4 args=() p
  shift 4
  mkdir -p "$out"
  for p in "$@"; do
    args+=("--plugin=protoc-gen-$p=$BIN/protoc-gen-$p" "--${p}_out=$out" "--${p}_opt=module=$module")
  done
  protoc --descriptor_set_in="$ROOT/.tmp/protodeps.binpb" -I "$include" -I "$ROOT/protomcp/proto" "${args[@]}" "$file"
}

# generate DEST writes every generated file under DEST, laid out as in the
# repository.
generate() {
  local dest=$1
  run_protoc "$dest/protomcp" github.com/ferry-mcp/ferry/protomcp "$ROOT/protomcp/proto" \
    ferry/v1/options.proto go
  run_protoc "$dest/examples/weather" github.com/ferry-mcp/ferry/examples/weather "$ROOT/examples/weather/proto" \
    weather/v1/weather.proto go connect-go ferry
}

# buf_check runs buf generate over the golden cases hints and names (they
# import only ferry/v1/options.proto) and diffs with their golden files.
buf_check() {
  if [ "$("$BIN/buf" --version 2>/dev/null)" != "${BUF_VERSION#v}" ]; then
    echo "protoc.sh: installing buf@$BUF_VERSION into $BIN" >&2
    GOBIN=$BIN go install "github.com/bufbuild/buf/cmd/buf@$BUF_VERSION"
  fi
  local tmp testdata=$ROOT/protomcp/cmd/protoc-gen-ferry/testdata rc=0 c
  tmp=$(mktemp -d)
  mkdir -p "$tmp/ferry" "$tmp/tests"
  cp -r "$ROOT/protomcp/proto/ferry" "$tmp/ferry/"
  cp -r "$testdata/hints" "$testdata/names" "$tmp/tests/"
  printf 'version: v2\nmodules:\n  - path: ferry\n  - path: tests\n' >"$tmp/buf.yaml"
  printf 'version: v2\nplugins:\n  - local: %s\n    out: out\n' "$BIN/protoc-gen-ferry" >"$tmp/buf.gen.yaml"
  (cd "$tmp" && "$BIN/buf" generate --path tests/hints --path tests/names) || rc=1
  for c in hints names; do
    diff -ru "$testdata/golden/$c/example.com/gen/$c" "$tmp/out/example.com/gen/$c" || rc=1
  done
  rm -rf "$tmp"
  return "$rc"
}

# compile_variants generates the weather example with the plugin options
# that change code (simple, direct=false) into .tmp/<name> (two levels
# down, as examples/weather is, so its go.mod's replaces hold) and builds it.
compile_variants() {
  local name opts dir rc=0 p
  for name in weather-simple weather-nodirect; do
    dir=$ROOT/.tmp/$name
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$ROOT/examples/weather/go.mod" "$ROOT/examples/weather/go.sum" "$dir/"
    case $name in
    weather-simple) opts=(go connect-go:simple ferry:simple) ;;
    weather-nodirect) opts=(go ferry:direct=false) ;;
    esac
    local args=() plugin extra
    for p in "${opts[@]}"; do
      plugin=${p%%:*} extra=
      if [[ $p == *:* ]]; then extra=,${p#*:}; fi
      args+=("--plugin=protoc-gen-$plugin=$BIN/protoc-gen-$plugin" "--${plugin}_out=$dir"
        "--${plugin}_opt=module=github.com/ferry-mcp/ferry/examples/weather$extra")
    done
    protoc --descriptor_set_in="$ROOT/.tmp/protodeps.binpb" -I "$ROOT/examples/weather/proto" -I "$ROOT/protomcp/proto" \
      "${args[@]}" weather/v1/weather.proto &&
      (cd "$dir" && GOWORK=off go vet ./gen/...) || { echo "protoc.sh: the $name variant does not build" >&2; rc=1; }
    rm -rf "$dir"
  done
  return "$rc"
}

install_tools
case "${1:-}" in
"")
  generate "$ROOT"
  ;;
check)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  generate "$tmp"
  (cd "$ROOT/protomcp" && go test -count=1 -run '^TestGolden$' ./cmd/protoc-gen-ferry -args -update -golden-dir "$tmp/golden" >/dev/null)
  # protoc itself, not only the in-process test, writes the golden files.
  testdata=$ROOT/protomcp/cmd/protoc-gen-ferry/testdata
  for c in names hints prompts schemas; do
    mkdir -p "$tmp/protoc/$c"
    protoc --descriptor_set_in="$ROOT/.tmp/protodeps.binpb" -I "$testdata" -I "$ROOT/protomcp/proto" \
      --plugin=protoc-gen-ferry="$BIN/protoc-gen-ferry" --ferry_out="$tmp/protoc/$c" "$c/v1/$c.proto"
  done
  rc=0
  for c in names hints prompts schemas; do
    diff -ru "$testdata/golden/$c" "$tmp/protoc/$c" || rc=1
  done
  diff -u "$ROOT/protomcp/ferrypb/v1/options.pb.go" "$tmp/protomcp/ferrypb/v1/options.pb.go" || rc=1
  diff -ru "$ROOT/examples/weather/gen" "$tmp/examples/weather/gen" || rc=1
  diff -ru "$ROOT/protomcp/cmd/protoc-gen-ferry/testdata/golden" "$tmp/golden" || rc=1
  if [ "$rc" != 0 ]; then
    echo "protoc.sh: generated code is stale; run tools/protoc.sh and commit the result" >&2
  fi
  compile_variants || rc=1
  exit "$rc"
  ;;
buf)
  buf_check
  ;;
*)
  echo "usage: tools/protoc.sh [check | buf]" >&2
  exit 2
  ;;
esac
