package ferry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// An authenticator in front of the HTTP handler sets the caller; tools,
// middleware and the call log read it. Here the caller comes from a header,
// as a stand-in for a verified token.
func ExampleWithPrincipal() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	srv.AddTool(ferry.Tool{Name: "whoami", Description: "Names the caller."},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			p, ok := ferry.PrincipalFromContext(ctx)
			if !ok {
				return nil, ferry.Forbidden("sign in first")
			}
			return ferry.NewResult(ferry.Text(p.Subject + " " + strings.Join(p.Scopes, ","))), nil
		})
	h := ferry.NewHTTPHandler(srv, nil)
	authenticate := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user := r.Header.Get("X-Example-User"); user != "" {
			p := &ferry.Principal{Subject: user, Scopes: []string{"orders:read"}}
			r = r.WithContext(ferry.WithPrincipal(r.Context(), p))
		}
		h.ServeHTTP(w, r)
	})

	fmt.Println(exampleCall(authenticate, "whoami", "ada"))
	fmt.Println(exampleCall(authenticate, "whoami", ""))
	// Output:
	// ada orders:read
	// forbidden: sign in first
}

// Visible hides tools beyond their own scopes and roles, which the server
// enforces without it: here a caller on the "free" plan (a claim its
// authenticator found) sees no tool that writes. A hidden tool answers as
// a call of no tool at all.
func ExampleServerOptions_visible() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.DiscardHandler),
		Visible: func(ctx context.Context, t ferry.ToolInfo) bool {
			p, _ := ferry.PrincipalFromContext(ctx)
			return !t.Writes() || p != nil && p.Claims["plan"] != "free"
		},
	})
	ok := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("done")), nil
	}
	srv.AddTool(ferry.Tool{Name: "list_orders", Description: "Lists orders.", ReadOnly: true}, ok)
	srv.AddTool(ferry.Tool{Name: "refund", Description: "Refunds an order."}, ok)
	h := ferry.NewHTTPHandler(srv, nil)
	authenticate := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := &ferry.Principal{Subject: r.Header.Get("X-Example-User"), Claims: map[string]any{"plan": "free"}}
		h.ServeHTTP(w, r.WithContext(ferry.WithPrincipal(r.Context(), p)))
	})

	fmt.Println(exampleCall(authenticate, "list_orders", "ada"))
	fmt.Println(exampleCall(authenticate, "refund", "ada"))
	// Output:
	// done
	// unknown tool "refund"
}

// A server built from data learns its problems as one error before it
// serves, each problem naming its tool.
func ExampleServer_Check() {
	srv := ferry.NewServer("example", "1.0.0", nil)
	noop := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil }
	for _, table := range []string{"orders", "order items", "refunds"} {
		desc := "Reads the " + table + " table."
		if table == "refunds" {
			desc = ""
		}
		srv.AddTool(ferry.Tool{Name: table, Description: desc, ReadOnly: true}, noop)
	}
	if err := srv.Check(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// tool "order items": name has ' '; use only A-Z, a-z, 0-9, '_', '-' and '.'
	// tool "refunds": has no description: say what it does and when to use it
}

// exampleCall calls a tool in the modern era through h as user, and returns
// the result's text or the protocol error's message.
func exampleCall(h http.Handler, tool, user string) string {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},` + modernMeta + `}}`
	req, _ := http.NewRequest("POST", "/mcp", strings.NewReader(body))
	req.Host = "localhost"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	if user != "" {
		req.Header.Set("X-Example-User", user)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var msg struct {
		Result struct {
			Content []struct{ Text string }
		}
		Error struct{ Message string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &msg); err != nil {
		return err.Error()
	}
	if msg.Error.Message != "" {
		return msg.Error.Message
	}
	return msg.Result.Content[0].Text
}

// A middleware decides by the called tool, which the request carries
// resolved: here a read-only switch refuses every tool that writes. Its
// refusal reads to the model exactly as a handler's would.
func ExampleToolMiddleware() {
	readOnly := func(next ferry.ToolHandler) ferry.ToolHandler {
		return func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			if req.Tool.Writes() {
				return nil, ferry.Forbidden(req.Name + " writes, and the server is read-only today")
			}
			return next(ctx, req)
		}
	}
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{
		Logger:         slog.New(slog.DiscardHandler),
		ToolMiddleware: []ferry.ToolMiddleware{readOnly},
	})
	ok := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("done")), nil
	}
	srv.AddTool(ferry.Tool{Name: "list_orders", Description: "Lists orders.", ReadOnly: true}, ok)
	srv.AddTool(ferry.Tool{Name: "refund", Description: "Refunds an order."}, ok)
	h := ferry.NewHTTPHandler(srv, nil)

	fmt.Println(exampleCall(h, "list_orders", ""))
	fmt.Println(exampleCall(h, "refund", ""))
	// Output:
	// done
	// forbidden: refund writes, and the server is read-only today
}
