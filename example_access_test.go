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

// exampleStdio serves each line on its own connection of srv, as the
// caller p (nil for anonymous), and prints what each answer says: the
// text of a result, the message of an error, or the descriptions of a
// tools/list.
func exampleStdio(srv *ferry.Server, p *ferry.Principal, lines ...string) {
	for _, line := range lines {
		var out strings.Builder
		ctx := ferry.WithPrincipal(context.Background(), p)
		if err := srv.Run(ctx, &ferry.IOTransport{Reader: strings.NewReader(line + "\n"), Writer: &out}); err != nil {
			fmt.Println(err)
			continue
		}
		var msg struct {
			Result struct {
				Content []struct{ Text string }
				Tools   []struct{ Name, Description string }
			}
			Error struct{ Message string }
		}
		_ = json.Unmarshal([]byte(out.String()), &msg)
		switch {
		case msg.Error.Message != "":
			fmt.Println(msg.Error.Message)
		case len(msg.Result.Content) > 0:
			fmt.Println(msg.Result.Content[0].Text)
		default:
			for _, t := range msg.Result.Tools {
				fmt.Printf("%s: %s\n", t.Name, t.Description)
			}
		}
	}
}

// modernCall is a 2026-07-28 tools/call of tool with the arguments args.
func modernCall(tool, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + modernMeta + `}}`
}

const modernList = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`

func done(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	return ferry.NewResult(ferry.Text("done")), nil
}

// Scopes and roles on a tool are enforced by the server: a caller who
// lacks them does not see the tool, and calling it reads as calling a
// tool that does not exist. DescribeRequirements tells the model what
// each tool needs.
func ExampleServerOptions_describeRequirements() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.DiscardHandler), DescribeRequirements: true})
	srv.AddTool(ferry.Tool{Name: "list_orders", Description: "Lists orders.", ReadOnly: true}, done)
	srv.AddTool(ferry.Tool{Name: "refund", Description: "Refunds an order.",
		Scopes: []string{"orders:write"}, Roles: []string{"admin", "clerk"}}, done)

	clerk := &ferry.Principal{Subject: "ada", Scopes: []string{"orders:write"}, Roles: []string{"clerk"}}
	exampleStdio(srv, clerk, modernList, modernCall("refund", "{}"))
	exampleStdio(srv, nil, modernList, modernCall("refund", "{}"))
	// Output:
	// list_orders: Lists orders.
	// refund: Refunds an order. Requires the scope orders:write. Only for the roles admin, clerk.
	// done
	// list_orders: Lists orders.
	// unknown tool "refund"
}

// A read-only server hides and refuses every tool not marked ReadOnly;
// the catalog still lists them, and Allows says which it refuses.
func ExampleServerOptions_readOnly() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), ReadOnly: true})
	srv.AddTool(ferry.Tool{Name: "list_orders", Description: "Lists orders.", ReadOnly: true}, done)
	srv.AddTool(ferry.Tool{Name: "cancel_order", Description: "Cancels an order."}, done)

	exampleStdio(srv, nil, modernList, modernCall("cancel_order", "{}"))
	for _, t := range srv.Catalog().Tools() {
		fmt.Println(t.Name, "allowed:", srv.Allows(context.Background(), t))
	}
	// Output:
	// list_orders: Lists orders.
	// unknown tool "cancel_order"
	// cancel_order allowed: false
	// list_orders allowed: true
}

// With StepUp, a tool whose scopes the caller lacks is listed, and a call
// over HTTP gets 403 with the challenge a client answers by asking the
// user for the missing scopes. Here the scope hierarchy lets "orders"
// grant "orders:read".
func ExampleServerOptions_stepUp() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.DiscardHandler), StepUp: true,
		ScopeImplies: func(held, needed string) bool { return strings.HasPrefix(needed, held+":") },
	})
	srv.AddTool(ferry.Tool{Name: "refund", Description: "Refunds an order.", Scopes: []string{"orders:read", "payments:write"}}, done)
	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{ResourceMetadataURL: "https://api.example.com/.well-known/oauth-protected-resource"})

	req := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(modernCall("refund", "{}")))
	for k, v := range map[string]string{"Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "refund"} {
		req.Header.Set(k, v)
	}
	req = req.WithContext(ferry.WithPrincipal(req.Context(), &ferry.Principal{Subject: "ada", Scopes: []string{"orders"}}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	fmt.Println(w.Code, http.StatusText(w.Code))
	fmt.Println(w.Header().Get("WWW-Authenticate"))
	// Output:
	// 403 Forbidden
	// Bearer error="insufficient_scope", scope="payments:write", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource", error_description="this tool needs the scope(s) payments:write"
}

// A typed tool takes its caller in a *Principal field, which is no
// argument: it is not in the schema and no client can set it.
func ExampleAddTool_principal() {
	type noteIn struct {
		Text   string           `json:"text"`
		Caller *ferry.Principal `json:"-"`
	}
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	ferry.AddTool(srv, ferry.Tool{Name: "note", Description: "Keeps a note."}, func(_ context.Context, in noteIn) (string, error) {
		if in.Caller == nil {
			return "", ferry.Forbidden("sign in to keep notes")
		}
		return in.Caller.Subject + " noted " + in.Text, nil
	})
	exampleStdio(srv, &ferry.Principal{Subject: "ada"}, modernCall("note", `{"text":"buy milk"}`))
	exampleStdio(srv, nil, modernCall("note", `{"text":"buy milk"}`))
	// Output:
	// ada noted buy milk
	// forbidden: sign in to keep notes
}
