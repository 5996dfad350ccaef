package protoschema

import (
	"context"
	"encoding/json"
	"testing"

	_ "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/bufbuild/protocompile"
	"github.com/ferry-mcp/ferry/schema"
	_ "google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// testFiles are the .proto files under testdata, compiled with source info.
var testFiles = []string{"test/v1/types.proto", "test/v1/rules.proto", "test/v1/legacy.proto", "test/v1/editions.proto"}

// compileFiles compiles testFiles with protocompile. Imports not under
// testdata (buf/validate/validate.proto, google/api/field_behavior.proto)
// come from the descriptors the Go packages register.
func compileFiles(t testing.TB) *protoregistry.Files {
	t.Helper()
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{ImportPaths: []string{"testdata"}},
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
				if err != nil {
					return protocompile.SearchResult{}, err
				}
				return protocompile.SearchResult{Desc: fd}, nil
			}),
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := c.Compile(context.Background(), testFiles...)
	if err != nil {
		t.Fatalf("compiling test protos: %v", err)
	}
	reg := &protoregistry.Files{}
	for _, f := range files {
		if err := reg.RegisterFile(f); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// message returns the test message named name (without package).
func message(t testing.TB, reg *protoregistry.Files, name string) protoreflect.MessageDescriptor {
	t.Helper()
	d, err := reg.FindDescriptorByName(protoreflect.FullName("test.v1." + name))
	if err != nil {
		t.Fatalf("message %s: %v", name, err)
	}
	return d.(protoreflect.MessageDescriptor)
}

// TestPortable checks that every test message's schemas pass the root's
// portability check, which Ferry runs at start-up.
func TestPortable(t *testing.T) {
	reg := compileFiles(t)
	reg.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		msgs := f.Messages()
		for i := range msgs.Len() {
			md := msgs.Get(i)
			for _, build := range []func(protoreflect.MessageDescriptor) (json.RawMessage, error){Input, Output} {
				data, err := build(md)
				if err != nil {
					t.Errorf("%s: %v", md.FullName(), err)
					continue
				}
				if err := schema.PortableJSON(data); err != nil {
					t.Errorf("%s: %v\n%s", md.FullName(), err, data)
				}
			}
		}
		return true
	})
}
