package jsonrpc

import "testing"

// BenchmarkCheckShape measures the shape check of a typical tools/call,
// which every HTTP body and stdio line pays before it is decoded.
func BenchmarkCheckShape(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"search_orders","arguments":{"query":"blue widgets","limit":10,"tags":["a","b"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if err := CheckShape(body, 64); err != nil {
			b.Fatal(err)
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
		if err := CheckShape(benchCall, 64); err != nil {
			b.Fatal(err)
		}
		if _, _, err, _ := DecodeWith(benchCall, &p); err != nil {
			b.Fatal(err)
		}
	}
}
