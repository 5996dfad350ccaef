package protoschema

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestClientValidators checks random valid messages' protojson against
// their output and input schemas with the validators of the official
// TypeScript SDKs (testdata/clients.mjs): a client that checks structured
// content must accept every response. It needs Node 22 and tools/npm.sh's
// packages; without them it skips, unless CI is set.
func TestClientValidators(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	modules := filepath.Join(root, "tools", "npm")
	unavailable := func(why string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI is set: run tools/npm.sh first)", why)
		}
		t.Skip(why)
	}
	if _, err := os.Stat(filepath.Join(modules, "node_modules", "@modelcontextprotocol", "client")); err != nil {
		unavailable("the TypeScript SDKs are not installed in tools/npm")
	}
	out, err := exec.Command(filepath.Join(root, "tools", "node22.sh")).Output()
	if err != nil {
		unavailable("no Node 22: " + err.Error())
	}
	node := strings.TrimSpace(string(out))

	f := newFixture(t)
	item := message(t, f.reg, "Item")
	type clientCase struct {
		Name   string            `json:"name"`
		Schema json.RawMessage   `json:"schema"`
		Docs   []json.RawMessage `json:"docs"`
	}
	var cases []clientCase
	f.reg.RangeFilesByPackage("test.v1", func(fd protoreflect.FileDescriptor) bool {
		msgs := fd.Messages()
		for i := range msgs.Len() {
			md := msgs.Get(i)
			for _, m := range []mode{input, output} {
				build, name := Input, string(md.Name())+" input"
				if m == output {
					build, name = Output, string(md.Name())+" output"
				}
				schema, err := build(md)
				if err != nil {
					t.Fatal(err)
				}
				c := clientCase{Name: name, Schema: schema}
				g := newGen(uint64(i)*31+uint64(m)+5, m, item)
				for range 10 {
					msg := f.valid(g, md)
					if msg == nil {
						continue
					}
					c.Docs = append(c.Docs, f.marshal(t, msg, protojson.MarshalOptions{}))
					if m == output {
						c.Docs = append(c.Docs, f.marshal(t, msg, protojson.MarshalOptions{EmitDefaultValues: true}))
					}
				}
				cases = append(cases, c)
			}
		}
		return true
	})
	data, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, filepath.Join("testdata", "clients.mjs"), modules, file)
	res, err := cmd.CombinedOutput()
	t.Logf("%s", res)
	if err != nil {
		t.Fatalf("the SDK validators refuse documents: %v", err)
	}
}
