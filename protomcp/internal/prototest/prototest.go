// Package prototest compiles .proto files for tests, in process and with
// source info, with github.com/bufbuild/protocompile. Imports that the
// sources do not provide are taken from protoregistry.GlobalFiles, so a
// test that links the Go packages of buf/validate/validate.proto,
// google/api/field_behavior.proto or ferry/v1/options.proto can import
// them without their .proto text.
package prototest

import (
	"context"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate" // for imports of buf/validate/validate.proto
	_ "google.golang.org/genproto/googleapis/api/annotations"                   // for imports of google/api/field_behavior.proto

	_ "github.com/ferry-mcp/ferry/protomcp/ferrypb/v1" // for imports of ferry/v1/options.proto
)

// Compile compiles the files named (paths as imported) from sources, a
// map of path to text, failing t on any error.
func Compile(t testing.TB, sources map[string]string, names ...string) []protoreflect.FileDescriptor {
	t.Helper()
	files, err := compile(t.Context(), &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(sources)}, names)
	if err != nil {
		t.Fatalf("compiling %v: %v", names, err)
	}
	return files
}

// CompileDir compiles the files named (paths relative to dir), failing t
// on any error.
func CompileDir(t testing.TB, dir string, names ...string) []protoreflect.FileDescriptor {
	t.Helper()
	files, err := compile(t.Context(), &protocompile.SourceResolver{ImportPaths: []string{dir}}, names)
	if err != nil {
		t.Fatalf("compiling %v in %s: %v", names, dir, err)
	}
	return files
}

// CompileError returns the error of compiling names from sources, nil if
// they compile.
func CompileError(ctx context.Context, sources map[string]string, names ...string) error {
	_, err := compile(ctx, &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(sources)}, names)
	return err
}

func compile(ctx context.Context, src protocompile.Resolver, names []string) ([]protoreflect.FileDescriptor, error) {
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			src,
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
				return protocompile.SearchResult{Desc: fd}, err
			}),
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	linked, err := c.Compile(ctx, names...)
	if err != nil {
		return nil, err
	}
	out := make([]protoreflect.FileDescriptor, len(linked))
	for i, f := range linked {
		out[i] = f
	}
	return out, nil
}
