package ferry

import (
	"bufio"
	"io"
	"strconv"
	"testing"
)

// BenchmarkStdioToolsCall measures tools/call over a line connection with
// many requests in flight, as a client that pipelines would send them.
func BenchmarkStdioToolsCall(b *testing.B) {
	srv := benchServer()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(b.Context(), &IOTransport{Reader: inR, Writer: outW}) }()
	w := bufio.NewWriter(inW)
	_, _ = w.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}` + "\n")
	_ = w.Flush()
	r := bufio.NewReaderSize(outR, 1<<16)
	if _, err := r.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for i := range b.N {
			_, _ = w.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}` + "\n")
			if i%64 == 63 {
				_ = w.Flush()
			}
		}
		_ = w.Flush()
	}()
	for range b.N {
		if _, err := r.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	inW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
