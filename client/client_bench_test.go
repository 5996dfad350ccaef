package client_test

import (
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// BenchmarkCallTool measures one tools/call round trip of the echo tool,
// in process and over a loopback socket, in both eras.
func BenchmarkCallTool(b *testing.B) {
	for _, protocol := range []string{client.Version20260728, client.Version20251125} {
		h := ferry.NewHTTPHandler(newTestServer(nil), nil)
		b.Run("handler/"+protocol, func(b *testing.B) {
			c, err := client.DialHandler(b.Context(), h, &client.Options{Protocol: protocol})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			benchCalls(b, c)
		})
		b.Run("socket/"+protocol, func(b *testing.B) {
			ts := httptest.NewServer(h)
			defer ts.Close()
			c, err := client.DialHTTP(b.Context(), ts.URL, &client.Options{Protocol: protocol})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			benchCalls(b, c)
		})
	}
}

func benchCalls(b *testing.B, c *client.Client) {
	args := map[string]string{"text": "hi"}
	b.ReportAllocs()
	start := cpuTime()
	defer reportCPU(b, start)
	for b.Loop() {
		if _, err := c.CallTool(b.Context(), "echo", args); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the CPU time the process has used (user and system), so
// benchmarks can report CPU per call apart from the wall time a shared
// machine inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
