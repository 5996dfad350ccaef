// Package bench compares Ferry with other Go MCP server frameworks.
//
// Every implementation serves the same two tools, "add" and "echo", over the
// same transports, so that throughput, latency, allocations and session
// memory can be compared like for like. See README.md for how to run it.
//
// # Implementations
//
//   - ferry: github.com/ferry-mcp/ferry, raw tools
//   - ferrytyped: Ferry with typed tools, validated on every call
//   - gosdk: github.com/modelcontextprotocol/go-sdk
//   - mcpgo: github.com/mark3labs/mcp-go
//   - limit: a plain net/http handler using encoding/json; the floor that a
//     framework can approach but not beat
//   - floor: a bare net/http handler that reads the body and writes a
//     constant answer; what net/http itself costs per call
package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
)

// Schemas shared by every implementation.
var (
	// AddInputSchema is the input schema of the add tool.
	AddInputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`)
	// AddOutputSchema is the output schema of the add tool.
	AddOutputSchema = json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)
	// EchoInputSchema is the input schema of the echo tool.
	EchoInputSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
)

// Tool descriptions shared by every implementation.
const (
	AddDescription  = "Adds two integers."
	EchoDescription = "Echoes its input."
)

// AddInput is the argument object of the add tool.
type AddInput struct {
	A int `json:"a"`
	B int `json:"b"`
}

// AddOutput is the structured result of the add tool.
type AddOutput struct {
	Sum int `json:"sum"`
}

// EchoInput is the argument object of the echo tool.
type EchoInput struct {
	Text string `json:"text"`
}

// Add decodes raw add arguments and returns the structured result and its
// JSON text. All implementations that receive raw arguments use it, so the
// tool body costs the same everywhere.
func Add(args json.RawMessage) (AddOutput, string, error) {
	var in AddInput
	if err := json.Unmarshal(args, &in); err != nil {
		return AddOutput{}, "", err
	}
	out := AddOutput{Sum: in.A + in.B}
	text, err := json.Marshal(out)
	if err != nil {
		return AddOutput{}, "", err
	}
	return out, string(text), nil
}

// Impl is one server implementation under test.
type Impl struct {
	// Name identifies the implementation on the command line and in reports.
	Name string
	// Handler returns a new HTTP handler serving the tools. If stateful is
	// true, the handler keeps sessions in memory; otherwise it is stateless.
	// It returns nil if the implementation has no such mode.
	Handler func(stateful bool) http.Handler
	// ServeStdio serves newline-delimited JSON-RPC on r and w until r is
	// exhausted or ctx is done. It is nil if the implementation has no
	// stdio mode.
	ServeStdio func(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error
}

// Impls returns the implementations compiled into this binary, in report
// order.
func Impls() []Impl {
	return []Impl{ferryImpl(), ferryTypedImpl(), gosdkImpl(), mcpgoImpl(), limitImpl(), floorImpl()}
}

// Lookup returns the implementation with the given name.
func Lookup(name string) (Impl, bool) {
	for _, impl := range Impls() {
		if impl.Name == name {
			return impl, true
		}
	}
	return Impl{}, false
}
