package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/ferry-mcp/ferry/protomcp/internal/protoset"
	"github.com/ferry-mcp/ferry/protomcp/internal/prototest"
)

var (
	update    = flag.Bool("update", false, "rewrite the golden files from the generator's output")
	goldenDir = flag.String("golden-dir", "testdata/golden", "directory of the golden files (tools/protoc.sh check writes a fresh set elsewhere)")
)

// goldenCases are the generator runs the golden files record: each
// generates files (paths under testdata) with param as --ferry_opt.
var goldenCases = []struct {
	name  string
	files []string
	param string
}{
	{name: "names", files: []string{"names/v1/names.proto"}},
	{name: "names_prefix", files: []string{"names/v1/names.proto"}, param: "prefix=acme_"},
	{name: "hints", files: []string{"hints/v1/hints.proto"}},
	{name: "hints_simple", files: []string{"hints/v1/hints.proto"}, param: "simple"},
	{name: "hints_no_direct", files: []string{"hints/v1/hints.proto"}, param: "direct=false"},
	{name: "hints_connect_suffix", files: []string{"hints/v1/hints.proto"}, param: "connect_package_suffix=rpc"},
	{name: "prompts", files: []string{"prompts/v1/prompts.proto"}},
	{name: "multi", files: []string{"multi/v1/a.proto", "multi/v1/b.proto"}, param: "paths=source_relative"},
	{name: "schemas", files: []string{"schemas/v1/schemas.proto"}},
	{name: "collisions", files: []string{"errors/v1/collide.proto"}},
	{name: "bad_prefix", files: []string{"hints/v1/hints.proto"}, param: "prefix=a/b"},
	{name: "unknown_param", files: []string{"hints/v1/hints.proto"}, param: "colour=blue"},
	{name: "bad_direct", files: []string{"hints/v1/hints.proto"}, param: "direct=no"},
}

// TestGolden runs the plugin in process on CodeGeneratorRequests built from
// the testdata .proto files, compiled with source info, and compares each
// generated file, or the error the run reports, with testdata/golden.
func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			resp := run(t, request(t, tc.files, tc.param))
			got := map[string]string{}
			if resp.Error != nil {
				got["error.txt"] = *resp.Error + "\n"
			}
			for _, f := range resp.File {
				got[f.GetName()] = f.GetContent()
			}
			dir := filepath.Join(*goldenDir, tc.name)
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				for name, content := range got {
					write(t, filepath.Join(dir, name), content)
				}
				return
			}
			want := readTree(t, dir)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("generated output differs from %s (-want +got); run go test -run TestGolden -update:\n%s", dir, diff)
			}
		})
	}
}

// request builds the CodeGeneratorRequest protoc would send for files.
func request(t *testing.T, files []string, param string) *pluginpb.CodeGeneratorRequest {
	t.Helper()
	compiled := prototest.CompileDir(t, "testdata", files...)
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate:  files,
		CompilerVersion: &pluginpb.Version{Major: proto.Int32(3), Minor: proto.Int32(21), Patch: proto.Int32(12)},
	}
	if param != "" {
		req.Parameter = proto.String(param)
	}
	req.ProtoFile = protoset.Of(compiled...).GetFile()
	// Through the wire form, as protoc hands it over: options decoded by
	// the plugin, not the compiler's own values.
	b, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	out := &pluginpb.CodeGeneratorRequest{}
	if err := proto.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// run runs the plugin as main does.
func run(t *testing.T, req *pluginpb.CodeGeneratorRequest) *pluginpb.CodeGeneratorResponse {
	t.Helper()
	var cfg config
	p, err := protogen.Options{ParamFunc: cfg.set}.New(req)
	if err != nil {
		msg := err.Error()
		return &pluginpb.CodeGeneratorResponse{Error: &msg}
	}
	if err := generate(p, &cfg); err != nil {
		p.Error(err)
	}
	return p.Response()
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v (run go test -run TestGolden -update)", dir, err)
	}
	return files
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenCoversEveryFile fails if a testdata .proto file is in no case.
func TestGoldenCoversEveryFile(t *testing.T) {
	used := map[string]bool{}
	for _, tc := range goldenCases {
		for _, f := range tc.files {
			used[f] = true
		}
	}
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".proto") {
			return err
		}
		rel, _ := filepath.Rel("testdata", path)
		if !used[filepath.ToSlash(rel)] {
			t.Errorf("%s is in no golden case", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
