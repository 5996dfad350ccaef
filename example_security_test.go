package ferry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
)

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

// A call that outlives CallTimeout reads as timed out. The handler must
// heed its context: the call is answered when the handler returns.
func ExampleLimits_callTimeout() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallTimeout: 20 * time.Millisecond}})
	srv.AddTool(ferry.Tool{Name: "report", Description: "Builds a report slowly.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	exampleStdio(srv, nil, modernCall("report", "{}"))
	// Output:
	// unavailable: the tool timed out after 20ms
}

// Each caller may make CallRate calls a second on average, CallBurst at
// once, and have MaxCallsPerCaller in flight; every anonymous stdio
// client is one caller.
func ExampleLimits_callRate() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallRate: 0.5, CallBurst: 2, MaxCallsPerCaller: 4}})
	srv.AddTool(ferry.Tool{Name: "ping", Description: "Answers.", ReadOnly: true}, done)
	exampleStdio(srv, nil, modernCall("ping", "{}"), modernCall("ping", "{}"), modernCall("ping", "{}"))
	exampleStdio(srv, &ferry.Principal{Subject: "ada"}, modernCall("ping", "{}"))
	// Output:
	// done
	// done
	// unavailable: too many calls: a caller may make 0.5 a second, bursts of 2 (CallRate, CallBurst); retry in 2s, or have the server's operator raise the limit (ferry serve: -call-rate, -call-burst)
	// done
}

// A message that nests deeper than MaxJSONDepth is refused before it is
// decoded.
func ExampleLimits_maxJSONDepth() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{Limits: ferry.Limits{MaxJSONDepth: 8}, Logger: slog.New(slog.DiscardHandler)})
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Echoes.", ReadOnly: true}, done)
	exampleStdio(srv, nil, modernCall("echo", `{"v":[[[[]]]]}`), modernCall("echo", `{"v":[[[[[[]]]]]]}`))
	// Output:
	// done
	// parse error: the message nests arrays and objects more than 8 levels deep
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
