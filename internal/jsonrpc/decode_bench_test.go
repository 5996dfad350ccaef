package jsonrpc

import "testing"

// benchCall is a typical 2026-07-28 tools/call.
var benchCall = []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"search_orders","arguments":{"query":"blue widgets","limit":10,"tags":["a","b"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)

// BenchmarkDecode measures the decode of a typical tools/call, which
// every HTTP body and stdio line pays, with its params handed over.
func BenchmarkDecode(b *testing.B) {
	b.SetBytes(int64(len(benchCall)))
	var p nopParams
	for b.Loop() {
		var m Message
		if r, err := testDecoder.Decode(benchCall, &m, &p); err != nil || r.Kind != KindRequest {
			b.Fatal(r, err)
		}
	}
}

// BenchmarkOldDecode measures what BenchmarkDecode replaces.
func BenchmarkOldDecode(b *testing.B) {
	b.SetBytes(int64(len(benchCall)))
	for b.Loop() {
		var p struct {
			Name string `json:"name"`
			Args []byte `json:"arguments"`
		}
		if err := checkShape(benchCall, 64); err != nil {
			b.Fatal(err)
		}
		if _, _, err, _ := decodeWith(benchCall, &p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeSmall measures the decode of the benchmarks' legacy
// tools/call, add(2, 3).
func BenchmarkDecodeSmall(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`)
	b.SetBytes(int64(len(msg)))
	var p nopParams
	for b.Loop() {
		var m Message
		if r, err := testDecoder.Decode(msg, &m, &p); err != nil || r.Kind != KindRequest {
			b.Fatal(r, err)
		}
	}
}
