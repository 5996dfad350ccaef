package protoschema

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bufbuild/protocompile"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/ferry-mcp/ferry/protomcp/internal/protoset"
)

func TestOptionsRecursion(t *testing.T) {
	t.Parallel()
	reg := compileFiles(t)
	md := message(t, reg, "Node")
	depthOf := func(o *Options) int {
		data, err := o.Input(md)
		if err != nil {
			t.Fatal(err)
		}
		doc := decode(t, data)
		depth := 0
		for cur := doc; ; depth++ {
			props, ok := cur["properties"].(map[string]any)
			if !ok {
				return depth
			}
			cur = props["parent"].(map[string]any)
		}
	}
	for _, tt := range []struct {
		opts *Options
		want int // expanded Node levels along parent
	}{
		{nil, 2},
		{&Options{Recursion: 2}, 3},
		{&Options{Recursion: -1}, 1},
		{&Options{MaxDepth: 1, Recursion: 5}, 1},
	} {
		if got := depthOf(tt.opts); got != tt.want {
			t.Errorf("%+v: %d levels, want %d", tt.opts, got, tt.want)
		}
	}
}

func TestOptionsMaxNodes(t *testing.T) {
	t.Parallel()
	reg := compileFiles(t)
	md := message(t, reg, "Envelope")
	full, err := Input(md)
	if err != nil {
		t.Fatal(err)
	}
	small, err := (&Options{MaxNodes: 10}).Input(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(small) >= len(full) || !strings.Contains(string(small), "reached its size limit") {
		t.Errorf("MaxNodes 10 did not cut the schema (%d bytes, full %d):\n%s", len(small), len(full), small)
	}
	// Exponential fan-out stays bounded by the default limit.
	if n := strings.Count(string(full), `"type"`); n > DefaultMaxNodes*2 {
		t.Errorf("%d subschemas", n)
	}
}

func TestOptionsDescription(t *testing.T) {
	t.Parallel()
	reg := compileFiles(t)
	md := message(t, reg, "Item")
	long := strings.Repeat("word ", 400)
	o := &Options{Description: func(d protoreflect.Descriptor) string {
		if d.Name() == "name" {
			return long
		}
		return "Custom " + string(d.Name())
	}}
	data, err := o.Input(md)
	if err != nil {
		t.Fatal(err)
	}
	doc := decode(t, data)
	if got := doc["description"]; got != "Custom Item." {
		t.Errorf("message description %q", got)
	}
	name := at(t, doc, "name").(map[string]any)["description"].(string)
	if n := utf8.RuneCountInString(name); n > maxDescription || !strings.HasSuffix(name, "…") {
		t.Errorf("long description not cut: %d characters, ends %q", n, name[len(name)-10:])
	}
}

func TestTidyComments(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{" One line.\n", "One line."},
		{" Two\n lines.\n", "Two lines."},
		{" First.\n\n Second\n   paragraph.\n", "First.\n\nSecond paragraph."},
		{"", ""},
	}
	for _, tt := range tests {
		if got := tidy(tt.in); got != tt.want {
			t.Errorf("tidy(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := joinDescription("no stop", []string{"Rule"}, ""); got != "no stop. Rule." {
		t.Errorf("joinDescription = %q", got)
	}
}

// TestRuntimeDescriptors builds the test files again the way the runtime
// path gets them: a FileDescriptorSet without source info, read with no
// extension types known, so options hold buf.validate and field_behavior
// as unknown bytes. The schemas must be those of the compiled files
// without comments.
func TestRuntimeDescriptors(t *testing.T) {
	t.Parallel()
	reg := compileFiles(t)
	var fds []protoreflect.FileDescriptor
	for _, path := range testFiles {
		f, err := reg.FindFileByPath(path)
		if err != nil {
			t.Fatal(err)
		}
		fds = append(fds, f)
	}
	set := protoset.WithoutSourceInfo(protoset.Of(fds...))
	wire, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	read := &descriptorpb.FileDescriptorSet{}
	if err := (proto.UnmarshalOptions{Resolver: &protoregistry.Types{}}).Unmarshal(wire, read); err != nil {
		t.Fatal(err)
	}
	runtime, err := protodesc.NewFiles(read)
	if err != nil {
		t.Fatal(err)
	}
	noComments := &Options{Description: func(protoreflect.Descriptor) string { return "" }}
	for _, name := range []string{"Resource", "StringRules", "NumberRules", "CollectionRules", "DescribedRules", "Envelope", "Legacy", "Extended", "Edition"} {
		for _, output := range []bool{false, true} {
			want, got := schemaPair(t, noComments, message(t, reg, name), output),
				schemaPair(t, nil, message(t, runtime, name), output)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s output=%v (-compiled +runtime):\n%s", name, output, diff)
			}
		}
	}
}

func schemaPair(t *testing.T, o *Options, md protoreflect.MessageDescriptor, output bool) any {
	t.Helper()
	build := o.Input
	if output {
		build = o.Output
	}
	data, err := build(md)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestErrors checks that rules that do not fit their field, and roots
// whose JSON form is not an object, are errors naming the message and the
// field.
func TestErrors(t *testing.T) {
	t.Parallel()
	src := map[string]string{"bad.proto": `syntax = "proto3";
package bad;
import "buf/validate/validate.proto";
import "google/protobuf/timestamp.proto";
message Mismatch {
  int32 count = 1 [(buf.validate.field).string.min_len = 1];
}
message ListRulesOnScalar {
  string name = 1 [(buf.validate.field).repeated.min_items = 1];
}
message Nested {
  Mismatch inner = 1;
}
`}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
		&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(src)},
		protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
			fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
			return protocompile.SearchResult{Desc: fd}, err
		}),
	})}
	files, err := c.Compile(t.Context(), "bad.proto")
	if err != nil {
		t.Fatal(err)
	}
	msgs := files[0].Messages()
	tests := []struct {
		md   protoreflect.MessageDescriptor
		want string
	}{
		{msgs.ByName("Mismatch"), "protoschema: bad.Mismatch: field count: string rules on a field of type int32"},
		{msgs.ByName("ListRulesOnScalar"), "protoschema: bad.ListRulesOnScalar: field name: repeated rules on a field of type string"},
		{msgs.ByName("Nested"), "protoschema: bad.Nested: field inner: field count: string rules on a field of type int32"},
		{files[0].Imports().Get(1).Messages().ByName("Timestamp"), "protoschema: google.protobuf.Timestamp: its JSON form is not an object, so it cannot be a tool's input or output"},
	}
	for _, tt := range tests {
		_, err := Input(tt.md)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Input(%s) = %v, want %q", tt.md.FullName(), err, tt.want)
		}
	}
}
