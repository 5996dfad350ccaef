package openapi_test

import (
	"runtime"
	"testing"

	"github.com/ferry-mcp/ferry/openapi"
)

// BenchmarkParseGitHub parses GitHub's REST API description (13 MB of
// JSON, 1,223 operations) and lists its operations. live-MB is the heap
// the parsed document keeps.
func BenchmarkParseGitHub(b *testing.B) {
	data := githubJSON(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var d *openapi.Document
	for b.Loop() {
		var err error
		if d, err = openapi.Parse(data); err != nil {
			b.Fatal(err)
		}
		if n := len(d.Operations()); n != 1223 {
			b.Fatalf("%d operations", n)
		}
	}
	b.StopTimer()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "live-MB")
	runtime.KeepAlive(d)
}

// BenchmarkToolsGitHub converts the 58 operations of GitHub's issues tag
// into tools (schemas inlined, allOf merged, recursion cut).
func BenchmarkToolsGitHub(b *testing.B) {
	d := loadGitHub(b)
	b.ReportAllocs()
	for b.Loop() {
		tools, err := d.Tools(&openapi.Options{Select: []string{"issues"}})
		if err != nil {
			b.Fatal(err)
		}
		if len(tools) != 58 {
			b.Fatalf("%d tools", len(tools))
		}
	}
}
