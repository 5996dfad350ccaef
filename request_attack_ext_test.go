package ferry_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// echoCall is a 2025-03-26 tools/call of echo whose envelope ends with
// rest (members after params) and whose arguments are args.
func echoCall(args, rest string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":` + args + `}` + rest + `}`
}

// An attacker's envelopes: members twice under different spellings,
// nesting hidden in strings and escapes, and brackets that are not
// nesting. Each is refused with the exact error, or served, over HTTP and
// as a stdio line; on stdio the connection goes on serving the next line.
func TestEnvelopeAttacksAreRefusedOrServedExactly(t *testing.T) {
	var runs atomic.Int32
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Echoes."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		runs.Add(1)
		return ferry.NewResult(ferry.Text("ran")), nil
	})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	const (
		tooDeep = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message nests arrays and objects more than 64 levels deep"}}`
		served  = `"text":"ran"`
	)
	twice := func(m string) string {
		return `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: invalid envelope member: \"` + m + `\" is sent twice"}}`
	}
	init := send(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`)
	sid := init.header.Get("Mcp-Session-Id")
	deep := strings.Repeat("[", 70) + strings.Repeat("]", 70)
	tests := []struct{ name, body, want string }{
		{"id twice, different values", echoCall(`{}`, `,"id":8`), twice("id")},
		{"jsonrpc twice", echoCall(`{}`, `,"jsonrpc":"1.0"`), twice("jsonrpc")},
		{"method escaped", echoCall(`{}`, `,"\u006dethod":"ping"`), twice("method")},
		{"id escaped", echoCall(`{}`, `,"\u0069\u0064":8`), twice("id")},
		{"params with a long s", echoCall(`{}`, `,"paramſ":{}`),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: invalid envelope member: \"paramſ\" is not a member; the member is \"params\""}}`},
		{"member twice after a nested value", `{"jsonrpc":"2.0","params":{"x":[[1]],"id":1},"id":1,"method":"tools/call","id":2}`, twice("id")},
		{"in a batch element", `[` + echoCall(`{}`, `,"id":8`) + `]`, twice("id")},
		{"brackets in a string", echoCall(`{"s":"`+deep+`"}`, ""), served},
		{"brackets after an escaped quote", echoCall(`{"s":"\"`+deep+`\""}`, ""), served},
		{"a member named id inside params", echoCall(`{"id":1,"id":2}`, ""), served},
		{"deep after an escaped backslash", echoCall(`{"s":"\\","t":`+deep+`}`, ""), tooDeep},
		{"deep arguments in a batch element", `[` + echoCall(deep, "") + `]`, tooDeep},
	}
	for _, tt := range tests {
		before := runs.Load()
		t.Run("HTTP/"+tt.name, func(t *testing.T) {
			got := send(t, ts.URL, tt.body, "Mcp-Protocol-Version", "2025-03-26", "Mcp-Session-Id", sid)
			if tt.want == served {
				if got.status != 200 || !strings.Contains(got.body, served) {
					t.Errorf("%d %s, want it served", got.status, got.body)
				}
				return
			}
			if got.status != 400 || strings.TrimSpace(got.body) != tt.want {
				t.Errorf("%d %s\nwant 400 %s", got.status, got.body, tt.want)
			}
			if runs.Load() != before {
				t.Error("the tool ran")
			}
		})
		t.Run("stdio/"+tt.name, func(t *testing.T) {
			var out strings.Builder
			in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}` + "\n" +
				tt.body + "\n" + `{"jsonrpc":"2.0","id":99,"method":"ping"}` + "\n"
			if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
				t.Fatal(err)
			}
			// A served call runs beside the next line: the answers may come
			// in either order.
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			const pong = `{"jsonrpc":"2.0","id":99,"result":{}}`
			if len(lines) != 3 || lines[1] != pong && lines[2] != pong {
				t.Fatalf("the connection did not serve the next line:\n%s", out.String())
			}
			got := lines[1]
			if got == pong {
				got = lines[2]
			}
			if tt.want == served && !strings.Contains(got, served) || tt.want != served && got != tt.want {
				t.Errorf("%s\nwant %s", got, tt.want)
			}
		})
	}
}

// A stdio line nested 100,000 deep, and one of 100,000 unclosed brackets,
// are answered and the connection serves the next line.
func TestDeepStdioLineKeepsTheConnection(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Echoes."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("ran")), nil
	})
	for name, line := range map[string]string{
		"nested":   nested(100_000),
		"unclosed": strings.Repeat("[", 100_000),
		"closers":  strings.Repeat("]", 100_000) + strings.Repeat("[", 100),
	} {
		t.Run(name, func(t *testing.T) {
			var out strings.Builder
			in := line + "\n" + `{"jsonrpc":"2.0","id":99,"method":"ping"}` + "\n"
			if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 2 || !strings.Contains(lines[0], `"code":-32700`) || lines[1] != `{"jsonrpc":"2.0","id":99,"result":{}}` {
				t.Errorf("got:\n%.300s", out.String())
			}
		})
	}
}

// A 20 MB body, in both eras and however it is shaped (one long string,
// deep nesting past the limit), is refused with 413 before it is read
// whole, the tool does not run, and the handler serves the next request.
func TestTwentyMegabyteBodyIsRefused(t *testing.T) {
	var runs atomic.Int32
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Echoes."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		runs.Add(1)
		return ferry.NewResult(ferry.Text("ran")), nil
	})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	const size = 20 << 20
	for name, args := range map[string]string{
		"long string": `{"s":"` + strings.Repeat("a", size) + `"}`,
		"deep":        strings.Repeat("[", size/2) + strings.Repeat("]", size/2),
	} {
		for _, e := range eras {
			t.Run(e.name+"/"+name, func(t *testing.T) {
				got := e.send(t, ts.URL, "tools/call", "echo", `"name":"echo","arguments":`+args)
				if got.status != 413 || runs.Load() != 0 {
					t.Errorf("%d %.200s (ran %d)", got.status, got.body, runs.Load())
				}
				if next := e.send(t, ts.URL, "tools/call", "echo", `"name":"echo","arguments":{}`); !strings.Contains(next.body, `"text":"ran"`) {
					t.Errorf("the next call: %d %s", next.status, next.body)
				}
				runs.Store(0)
			})
		}
	}
}
