package protoschema

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"
	"github.com/ferry-mcp/ferry/schema"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// FuzzInput compiles fuzzed .proto text and builds the schemas of every
// message in it: nothing may panic, and every schema built must be
// portable JSON that a JSON Schema validator compiles.
func FuzzInput(f *testing.F) {
	for _, name := range testFiles {
		src, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	f.Fuzz(func(t *testing.T, src string) {
		c := protocompile.Compiler{
			Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
				&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"fuzz.proto": src})},
				&protocompile.SourceResolver{ImportPaths: []string{"testdata"}},
				protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
					fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
					return protocompile.SearchResult{Desc: fd}, err
				}),
			}),
			SourceInfoMode: protocompile.SourceInfoStandard,
			Reporter:       reporter.NewReporter(func(reporter.ErrorWithPos) error { return errStop }, nil),
		}
		files, err := c.Compile(context.Background(), "fuzz.proto")
		if err != nil {
			return
		}
		var visit func(msgs protoreflect.MessageDescriptors)
		visit = func(msgs protoreflect.MessageDescriptors) {
			for i := range msgs.Len() {
				md := msgs.Get(i)
				for _, build := range []func(protoreflect.MessageDescriptor) ([]byte, error){
					func(md protoreflect.MessageDescriptor) ([]byte, error) { return Input(md) },
					func(md protoreflect.MessageDescriptor) ([]byte, error) { return Output(md) },
				} {
					data, err := build(md)
					if err != nil {
						continue // rules that do not fit, a root that is not an object
					}
					if err := schema.PortableJSON(data); err != nil {
						t.Fatalf("%s: %v\n%s", md.FullName(), err, data)
					}
					compileSchema(t, data)
				}
				visit(md.Messages())
			}
		}
		visit(files[0].Messages())
	})
}

var errStop = &stopError{}

type stopError struct{}

func (*stopError) Error() string { return "stop at the first error" }
