package protoschema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the current output")

// TestGolden compares the input and output schemas of every top-level test
// message with testdata/golden/<Message>.json; -update rewrites them.
func TestGolden(t *testing.T) {
	reg := compileFiles(t)
	seen := map[string]bool{}
	reg.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		if f.Package() != "test.v1" {
			return true
		}
		msgs := f.Messages()
		for i := range msgs.Len() {
			md := msgs.Get(i)
			name := string(md.Name()) + ".json"
			seen[name] = true
			t.Run(string(md.Name()), func(t *testing.T) { checkGolden(t, md, name) })
		}
		return true
	})
	// A golden file without its message is stale.
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			if *update {
				_ = os.Remove(f)
				continue
			}
			t.Errorf("%s has no message: remove it or run go test -update", f)
		}
	}
}

func checkGolden(t *testing.T, md protoreflect.MessageDescriptor, name string) {
	in, err := Input(md)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Output(md)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(`{"input":`)
	b.Write(in)
	b.WriteString(`,"output":`)
	b.Write(out)
	b.WriteString("}")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), pretty.String()); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}
