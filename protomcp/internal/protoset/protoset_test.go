package protoset_test

import (
	"testing"

	"github.com/ferry-mcp/ferry/protomcp/internal/protoset"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/typepb"
)

func TestOfListsImportsFirstAndOnce(t *testing.T) {
	st := structpb.File_google_protobuf_struct_proto
	fd := typepb.File_google_protobuf_type_proto // imports any.proto and source_context.proto
	set := protoset.Of(fd, st, fd)
	var names []string
	for _, f := range set.GetFile() {
		names = append(names, f.GetName())
	}
	want := []string{"google/protobuf/any.proto", "google/protobuf/source_context.proto", "google/protobuf/type.proto", "google/protobuf/struct.proto"}
	if len(names) != len(want) {
		t.Fatalf("got %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("got %v, want %v", names, want)
		}
	}
	protoset.WithoutSourceInfo(set)
	for _, f := range set.GetFile() {
		if f.SourceCodeInfo != nil {
			t.Errorf("%s keeps its source info", f.GetName())
		}
	}
}
