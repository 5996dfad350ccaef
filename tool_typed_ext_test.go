package ferry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/schema"
	"github.com/google/go-cmp/cmp"
)

type lineItem struct {
	SKU      string `json:"sku" doc:"The product's code." maxLength:"20"`
	Quantity int    `json:"quantity" minimum:"1"`
}

type orderIn struct {
	Customer string     `json:"customer" minLength:"1"`
	Email    string     `json:"email" format:"email"`
	Items    []lineItem `json:"items" minItems:"1"`
	Express  bool       `json:"express,omitzero"`
}

type orderOut struct {
	ID    string `json:"id"`
	Lines int    `json:"lines"`
}

// call serves one modern tools/call in memory (ferrytest's client) and
// returns the result as JSON values.
func call(t *testing.T, srv *ferry.Server, tool, args string) map[string]any {
	t.Helper()
	res := ferrytest.NewClient(t, srv, nil).CallTool(t.Context(), tool, json.RawMessage(args))
	var m map[string]any
	if err := json.Unmarshal(res.Raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func text(res map[string]any) string {
	c, _ := res["content"].([]any)
	if len(c) == 0 {
		return ""
	}
	s, _ := c[0].(map[string]any)["text"].(string)
	return s
}

func newOrderServer(t *testing.T, opts *ferry.ServerOptions) (*ferry.Server, *int) {
	t.Helper()
	srv := ferry.NewServer("orders", "1", opts)
	ran := new(int)
	ferry.AddTool(srv, ferry.Tool{Name: "place_order", Description: "Places an order."},
		func(ctx context.Context, in orderIn) (orderOut, error) {
			*ran++
			switch in.Customer {
			case "ghost":
				return orderOut{}, ferry.NotFound("No such customer.")
			case "panic":
				panic("boom")
			case "broken":
				return orderOut{}, errors.New("database on fire")
			}
			return orderOut{ID: "o-1", Lines: len(in.Items)}, nil
		})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return srv, ran
}

func TestTypedToolStructuredResult(t *testing.T) {
	srv, _ := newOrderServer(t, nil)
	res := call(t, srv, "place_order", `{"customer":"Ada","email":"ada@example.com","items":[{"sku":"X1","quantity":2}]}`)
	if diff := cmp.Diff(map[string]any{"id": "o-1", "lines": float64(1)}, res["structuredContent"]); diff != "" {
		t.Errorf("structuredContent (-want +got):\n%s", diff)
	}
	if got := text(res); got != `{"id":"o-1","lines":1}` {
		t.Errorf("text block = %q, want the same JSON", got)
	}
}

func TestTypedToolListsEveryViolation(t *testing.T) {
	srv, ran := newOrderServer(t, nil)
	res := call(t, srv, "place_order", `{"customer":"","email":"nope","items":[{"sku":"ABCDEFGHIJKLMNOPQRSTUVW","quantity":1}],"colour":"red"}`)
	if res["isError"] != true {
		t.Fatalf("invalid input: want an isError result, got %v", res)
	}
	msg := text(res)
	for _, want := range []string{"customer:", "email:", "items[0].sku: must be at most 20 characters, got 23", "colour"} {
		if !strings.Contains(msg, want) {
			t.Errorf("violations %q do not mention %q", msg, want)
		}
	}
	if *ran != 0 {
		t.Error("the handler ran on invalid input")
	}
}

func TestTypedToolCoercesUnambiguousStrings(t *testing.T) {
	srv, _ := newOrderServer(t, nil)
	res := call(t, srv, "place_order", `{"customer":"Ada","email":"ada@example.com","items":[{"sku":"X1","quantity":"3"}],"express":"true"}`)
	if res["isError"] == true {
		t.Fatalf("coercible input was refused: %s", text(res))
	}
	strict, _ := newOrderServer(t, &ferry.ServerOptions{Coercion: 1})
	res = call(t, strict, "place_order", `{"customer":"Ada","email":"ada@example.com","items":[{"sku":"X1","quantity":"3"}]}`)
	if res["isError"] != true {
		t.Fatal("the strict policy accepted a string for an integer")
	}
}

func TestTypedToolErrors(t *testing.T) {
	var logs bytes.Buffer
	srv, _ := newOrderServer(t, &ferry.ServerOptions{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	args := func(customer string) string {
		return `{"customer":"` + customer + `","email":"a@b.co","items":[{"sku":"X","quantity":1}]}`
	}
	if got := text(call(t, srv, "place_order", args("ghost"))); got != "not-found: No such customer." {
		t.Errorf("refusal: %q", got)
	}
	for _, c := range []string{"panic", "broken"} {
		res := call(t, srv, "place_order", args(c))
		msg := text(res)
		if res["isError"] != true || !strings.HasPrefix(msg, "the tool failed unexpectedly (ref ") {
			t.Errorf("%s: got %q, want a masked failure", c, msg)
		}
		ref := strings.TrimSuffix(strings.TrimPrefix(msg, "the tool failed unexpectedly (ref "), ")")
		if !strings.Contains(logs.String(), ref) {
			t.Errorf("%s: the log does not hold ref %s", c, ref)
		}
	}
	if strings.Contains(text(call(t, srv, "place_order", args("broken"))), "fire") {
		t.Error("the unexpected error leaked to the model")
	}
	for _, want := range []string{`"outcome":"refused"`, `"code":"not-found"`, `"outcome":"failed"`, `"tool":"place_order"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("call log lacks %s:\n%s", want, logs.String())
		}
	}
}

func TestOnToolErrorMapsServiceErrors(t *testing.T) {
	errLocked := errors.New("period locked")
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{OnToolError: func(_ context.Context, err error) *ferry.ToolResult {
		if errors.Is(err, errLocked) {
			return ferry.NewErrorResult("conflict: the period is locked")
		}
		return nil
	}})
	ferry.AddTool(srv, ferry.Tool{Name: "close", Description: "Closes the period."},
		func(context.Context, struct{}) (string, error) { return "", errLocked })
	if got := text(call(t, srv, "close", `{}`)); got != "conflict: the period is locked" {
		t.Errorf("got %q", got)
	}
}

func TestToolMiddlewareRunsInOrder(t *testing.T) {
	var order []string
	mw := func(name string) ferry.ToolMiddleware {
		return func(next ferry.ToolHandler) ferry.ToolHandler {
			return func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				order = append(order, name)
				return next(ctx, req)
			}
		}
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{ToolMiddleware: []ferry.ToolMiddleware{mw("first"), mw("second")}})
	ferry.AddTool(srv, ferry.Tool{Name: "t", Description: "A tool."},
		func(ctx context.Context, _ struct{}) (string, error) {
			info, _ := ferry.CallInfoFromContext(ctx)
			order = append(order, "handler:"+info.Tool)
			return "ok", nil
		})
	call(t, srv, "t", `{}`)
	if diff := cmp.Diff([]string{"first", "second", "handler:t"}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestCatalogAndParseToolCalls(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	noop := func(context.Context, struct{}) (string, error) { return "", nil }
	ferry.AddTool(srv, ferry.Tool{Name: "read", Description: "Reads.", ReadOnly: true}, noop)
	ferry.AddTool(srv, ferry.Tool{Name: "append", Description: "Appends.", Additive: true, ClosedWorld: true}, noop)
	ferry.AddTool(srv, ferry.Tool{Name: "wipe", Description: "Wipes."}, noop)
	names, err := ferry.ParseToolCalls([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wipe","arguments":{}}}`))
	if err != nil || len(names) != 1 || names[0] != "wipe" {
		t.Fatalf("ParseToolCalls = %q, %v", names, err)
	}
	if names, err := ferry.ParseToolCalls([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)); err != nil || len(names) != 0 {
		t.Errorf("ParseToolCalls(tools/list) = %q, %v; want none", names, err)
	}
	batch := []byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read"}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wipe"}}]`)
	if names, err := ferry.ParseToolCalls(batch); err != nil || len(names) != 2 || names[1] != "wipe" {
		t.Errorf("ParseToolCalls(batch) = %q, %v", names, err)
	}
	if _, err := ferry.ParseToolCalls([]byte(`{"method":`)); err == nil {
		t.Error("ParseToolCalls read a broken body")
	}
	cat := srv.Catalog()
	want := map[string]ferry.ToolInfo{
		// The handlers are this package's: their group is ferry_test.
		"read":   {Name: "read", ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true, Groups: []string{"ferry_test"}},
		"append": {Name: "append", Destructive: false, OpenWorld: false, Groups: []string{"ferry_test"}},
		"wipe":   {Name: "wipe", Destructive: true, OpenWorld: true, Groups: []string{"ferry_test"}},
	}
	for n, w := range want {
		w.Timeout, w.MaxResultBytes = ferry.DefaultCallTimeout, ferry.DefaultMaxResultBytes
		got, ok := cat.Lookup(n)
		if !ok || !cmp.Equal(got, w) {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", n, got, ok, w)
		}
	}
	if info, _ := cat.Lookup(names[0]); !info.Writes() {
		t.Error("wipe does not write, says the catalog")
	}
}

func TestCheckNamesEveryProblem(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	noop := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil }
	srv.AddTool(ferry.Tool{Name: "bad name", Description: "x"}, noop)
	srv.AddTool(ferry.Tool{Name: "silent"}, noop)
	srv.AddTool(ferry.Tool{Name: "twice", Description: "x"}, noop)
	srv.AddTool(ferry.Tool{Name: "twice", Description: "x"}, noop)
	srv.AddTool(ferry.Tool{Name: "rootless", Description: "x", RawInputSchema: json.RawMessage(`{"properties":{"a":{"$ref":"#/$defs/a"}}}`)}, noop)
	long := strings.Repeat("x", 1025)
	srv.AddTool(ferry.Tool{Name: "wordy", Description: "x", InputSchema: schema.Object(
		schema.Optional("a", schema.Text(long)), schema.Optional("b", schema.Text(long)))}, noop)
	srv.AddTool(ferry.Tool{Name: "long", Description: strings.Repeat("x", 1025)}, noop)
	ferry.AddTool(srv, ferry.Tool{Name: "badtag", Description: "x"}, func(context.Context, struct {
		N int `json:"n" minLength:"3"`
	}) (string, error) {
		return "", nil
	})
	err := srv.Check()
	if err == nil {
		t.Fatal("Check found nothing")
	}
	for _, want := range []string{`"bad name"`, `"silent": has no description`, `"twice" is registered twice`,
		`"rootless": input schema: the root must be an object schema`,
		`"wordy": input schema: description at a has 1025 characters`, `"wordy": input schema: description at b has 1025 characters`,
		`"long": description is 1025`, `"badtag"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check() does not mention %s:\n%v", want, err)
		}
	}
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(""), Writer: &bytes.Buffer{}}); err == nil {
		t.Error("Run served a server that fails its check")
	}
}

type library struct{}

type findIn struct {
	Query string `json:"query"`
}

func (library) FindBooks(ctx context.Context, in findIn) ([]string, error) {
	return []string{"SPQR"}, nil
}
func (library) LendBook(ctx context.Context, in findIn) (string, error) { return "lent", nil }
func (library) Helper() string                                          { return "not a tool" }

// FerryTools stands for the file ferry gen writes, with its pointer
// receiver; AddMethods finds it for a library passed by value too.
func (*library) FerryTools() map[string]ferry.Tool {
	return map[string]ferry.Tool{"FindBooks": {Name: "find_books", Description: "Searches books by title.", ReadOnly: true}}
}

func TestAddMethods(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddMethods(srv, library{})
	err := srv.Check()
	if err == nil || !strings.Contains(err.Error(), "LendBook has no description") {
		t.Fatalf("Check() = %v; want the undescribed LendBook named", err)
	}
	cat := srv.Catalog()
	if info, ok := cat.Lookup("find_books"); !ok || !info.ReadOnly {
		t.Errorf("find_books = %+v, %v", info, ok)
	}
	if _, ok := cat.Lookup("helper"); ok {
		t.Error("a method of another shape became a tool")
	}
}

// A modern request whose tool needs a client capability the request did
// not declare is answered -32021 naming it, whatever the handler returns
// (legacy sessions tell the model instead: see the conformance transcripts).
func TestModernToolNeedingAnUndeclaredCapabilityIsRefused(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "confirm", Description: "Asks first."},
		func(ctx context.Context, _ struct{}) (string, error) {
			if _, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?"}); err != nil {
				return "swallowed: " + err.Error(), nil
			}
			return "done", nil
		})
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	var out bytes.Buffer
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(line), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Error struct {
			Code int
			Data struct {
				RequiredCapabilities map[string]any
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &msg); err != nil {
		t.Fatalf("answer %q: %v", out.String(), err)
	}
	if msg.Error.Code != -32021 || msg.Error.Data.RequiredCapabilities["elicitation"] == nil {
		t.Errorf("got %s; want -32021 with data.requiredCapabilities.elicitation", out.Bytes())
	}
}

func TestArgumentsThatDoNotFitTheGoTypeNameTheField(t *testing.T) {
	srv, ran := newOrderServer(t, nil)
	res := call(t, srv, "place_order", `{"customer":"Ada","email":"a@b.co","items":[{"sku":"X","quantity":1e30}]}`)
	msg := text(res)
	want := "items.quantity: 1e30 is out of range: it must be a whole number from -9223372036854775808 to 9223372036854775807"
	if res["isError"] != true || !strings.Contains(msg, want) || strings.Contains(msg, "Go") || strings.Contains(msg, "int") {
		t.Errorf("got %q\nwant it to contain %q", msg, want)
	}
	if *ran != 0 {
		t.Error("the handler ran")
	}
}

// A typed tool's nested struct left out by the model still gets the
// defaults its fields publish: the handler sees max 1000, not 0.
func TestTypedToolFillsTheDefaultsOfAnOmittedNestedStruct(t *testing.T) {
	type priceRange struct {
		Min float64 `json:"min,omitzero" doc:"Lowest price."`
		Max float64 `json:"max,omitzero" doc:"Highest price." default:"1000"`
	}
	type searchIn struct {
		Query string     `json:"query" doc:"Text."`
		Price priceRange `json:"price,omitzero" doc:"The price range."`
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	ferry.AddTool(srv, ferry.Tool{Name: "search", Description: "Searches."}, func(_ context.Context, in searchIn) (string, error) {
		return fmt.Sprintf("%v-%v", in.Price.Min, in.Price.Max), nil
	})
	for args, want := range map[string]string{`{"query":"h"}`: "0-1000", `{"query":"h","price":{"min":5}}`: "5-1000",
		`{"query":"h","price":{"max":20}}`: "0-20"} {
		res := call(t, srv, "search", args)
		if got := res["content"].([]any)[0].(map[string]any)["text"]; got != want {
			t.Errorf("search %s: %v, want %s", args, got, want)
		}
	}
}

// A typed tool's problems are reported together: its name, its missing
// description and its bad tag, not the tag alone until it is fixed.
func TestCheckReportsEveryProblemOfATypedTool(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "bad tool"}, func(context.Context, struct {
		N int `json:"n" minLength:"3"`
	}) (string, error) {
		return "", nil
	})
	ferry.AddMethods(srv, &undocumented{})
	err := srv.Check()
	if err == nil {
		t.Fatal("Check found nothing")
	}
	for _, want := range []string{
		`tool "bad tool": name`, `tool "bad tool": has no description`, `tool "bad tool": input type`,
		`tool "count": method *ferry_test.undocumented.Count has no description`, `tool "count": input type`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check() does not mention %s:\n%v", want, err)
		}
	}
}

type undocumented struct{}

func (*undocumented) Count(context.Context, struct {
	N int `json:"n" pattern:"x"`
}) (int, error) {
	return 0, nil
}

// The object-root rule has one home: a typed tool whose In is not a struct
// is refused by the same check, in the same words, as a hand-built schema.
func TestTypedToolWithAScalarInputIsRefusedOnce(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "scalar", Description: "x"}, func(context.Context, int) (string, error) { return "", nil })
	err := srv.Check()
	want := `tool "scalar": input schema: the root must be an object schema (Type "object", not Nullable); a typed tool's input type must be a struct or a map, not a pointer`
	if err == nil || err.Error() != want {
		t.Errorf("Check() = %v\nwant %s", err, want)
	}
}

// A number out of its field's range is quoted as the model sent it, with
// the range it must be in.
func TestArgumentsOutOfRangeQuoteTheValueAndTheRange(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	ferry.AddTool(srv, ferry.Tool{Name: "n", Description: "x"}, func(context.Context, struct {
		N     int     `json:"n,omitzero"`
		Small int8    `json:"small,omitzero"`
		Count uint16  `json:"count,omitzero"`
		Ratio float32 `json:"ratio,omitzero"`
	}) (string, error) {
		return "ok", nil
	})
	for _, tt := range []struct{ args, want string }{
		{`{"n":99999999999999999999}`, "n: 99999999999999999999 is out of range: it must be a whole number from -9223372036854775808 to 9223372036854775807"},
		{`{"n":"99999999999999999999"}`, "n: 99999999999999999999 is out of range"},
		{`{"small":200}`, "small: 200 is out of range: it must be a whole number from -128 to 127"},
		{`{"count":70000}`, "count: 70000 is out of range: it must be a whole number from 0 to 65535"},
		{`{"ratio":1e300}`, "ratio: 1e300 is out of range: it must be a number from -3.4028235e+38 to 3.4028235e+38"},
	} {
		res := call(t, srv, "n", tt.args)
		if msg := text(res); res["isError"] != true || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: got %q\nwant it to contain %q", tt.args, msg, tt.want)
		}
	}
}

// A JSON object sent as a string where the schema wants an object is read
// as that object, as an array in a string is; its defaults are filled in.
func TestTypedToolReadsAnObjectSentAsAString(t *testing.T) {
	type priceRange struct {
		Min float64 `json:"min,omitzero"`
		Max float64 `json:"max,omitzero" default:"1000"`
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	ferry.AddTool(srv, ferry.Tool{Name: "price", Description: "x"}, func(_ context.Context, in struct {
		Price priceRange `json:"price"`
	}) (string, error) {
		return fmt.Sprint(in.Price.Min, "-", in.Price.Max), nil
	})
	if got := text(call(t, srv, "price", `{"price":"{\"min\":1}"}`)); got != "1-1000" {
		t.Errorf("got %q, want 1-1000", got)
	}
	res := call(t, srv, "price", `{"price":"{min: 1}"}`)
	if want := `price: expected an object, got a string that starts with { but is not valid JSON: "{min: 1}"`; res["isError"] != true || !strings.Contains(text(res), want) {
		t.Errorf("got %q, want it to contain %q", text(res), want)
	}
}

type warehouse struct{ stock int }

func (w *warehouse) CountStock(context.Context, struct{}) (int, error) { return w.stock, nil }

type shelf struct{}

func (shelf) Look(context.Context, struct{}) (string, error)   { return "", nil }
func (*shelf) Stack(context.Context, struct{}) (string, error) { return "", nil }
func (*shelf) FerryTools() map[string]ferry.Tool {
	return map[string]ferry.Tool{"Look": {Description: "Looks."}, "Stack": {Description: "Stacks."}}
}

// A value whose methods have pointer receivers has none of them: the
// problem says to pass a pointer, rather than that there are no methods.
func TestAddMethodsOnAValueWithPointerMethodsSaysToPassAPointer(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want string
	}{
		{warehouse{}, "AddMethods: ferry_test.warehouse has no exported method of the form func(context.Context, In) (Out, error): its methods have pointer receivers: pass &warehouse{}"},
		{shelf{}, "AddMethods: ferry_test.shelf: method Stack has a pointer receiver, so a ferry_test.shelf does not have it: pass &shelf{}"},
	} {
		srv := ferry.NewServer("s", "1", nil)
		ferry.AddMethods(srv, tt.v)
		if err := srv.Check(); err == nil || err.Error() != tt.want {
			t.Errorf("Check() = %v\nwant %s", err, tt.want)
		}
	}
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddMethods(srv, &shelf{})
	if err := srv.Check(); err != nil {
		t.Errorf("with a pointer: %v", err)
	}
}

type auditIn struct {
	Note   string           `json:"note"`
	Caller *ferry.Principal `json:"-"`
	Who    *ferry.Principal `json:"who"` // a tag does not make it an argument
}

// A typed tool's *Principal fields are the caller, set by the server:
// they are not in the schema, and a client that sends one gets the answer
// any unknown argument gets, the handler not run. The call log names the
// subject, and CallInfo still works.
func TestTypedToolTakesThePrincipal(t *testing.T) {
	srv, logs := newLogged(t, &ferry.ServerOptions{})
	var got []*ferry.Principal
	ferry.AddTool(srv, ferry.Tool{Name: "audit", Description: "Notes who called."}, func(ctx context.Context, in auditIn) (string, error) {
		got = append(got, in.Caller, in.Who)
		if info, ok := ferry.CallInfoFromContext(ctx); !ok || info.Tool != "audit" {
			t.Errorf("CallInfo = %+v, %v", info, ok)
		}
		return "noted " + in.Note, nil
	})
	schemas := list(t, srv)[0]["inputSchema"].(map[string]any)
	if props := schemas["properties"].(map[string]any); len(props) != 1 || props["note"] == nil {
		t.Errorf("input schema: %v", schemas)
	}
	ann := &ferry.Principal{Subject: "ann"}
	run := func(p *ferry.Principal, args string) string {
		c := ferrytest.NewClient(t, srv, &ferrytest.Options{Principal: p})
		return string(c.CallTool(t.Context(), "audit", json.RawMessage(args)).Raw)
	}
	if out := run(ann, `{"note":"hi"}`); !strings.Contains(out, "noted hi") {
		t.Fatalf("call: %s", out)
	}
	if len(got) != 2 || got[0] != ann || got[1] != ann {
		t.Errorf("principal fields = %v, want ann twice", got)
	}
	if rec := logs.callRecord(t); rec["principal"] != "ann" {
		t.Errorf("call log: %v", rec)
	}
	got = nil
	if out := run(nil, `{"note":"anon"}`); !strings.Contains(out, "noted anon") || len(got) != 2 || got[0] != nil || got[1] != nil {
		t.Errorf("anonymous call: %s, fields %v", out, got)
	}
	got = nil
	for _, args := range []string{`{"note":"x","who":{"Subject":"root","Roles":["admin"]}}`, `{"note":"x","Caller":{"Subject":"root"}}`} {
		out := run(nil, args)
		if !strings.Contains(out, `"isError":true`) || !strings.Contains(out, "invalid arguments") || got != nil {
			t.Errorf("injected %s: %s (handler saw %v)", args, out, got)
		}
	}
}

// A typed tool runs as a task like any other: its output comes back from
// the task as structured content, exactly as from a plain call.
func TestTypedToolRunsAsATask(t *testing.T) {
	srv := ferry.NewServer("typed", "1", &ferry.ServerOptions{Tasks: &ferry.TaskOptions{PollInterval: time.Millisecond}})
	type sumIn struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type sumOut struct {
		Sum int `json:"sum"`
	}
	ferry.AddTool(srv, ferry.Tool{Name: "sum", Description: "Adds.", TaskSupport: ferry.TaskOptional},
		func(_ context.Context, in sumIn) (sumOut, error) { return sumOut{in.A + in.B}, nil })
	c, err := client.DialHandler(t.Context(), ferry.NewHTTPHandler(srv, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var task string
	res, err := c.CallToolAsTask(t.Context(), "sum", map[string]int{"a": 2, "b": 3}, func(tk *client.Task) { task = tk.ID })
	if err != nil || res.IsError || task == "" || string(res.StructuredContent) != `{"sum":5}` {
		t.Errorf("as a task: %+v (structured %s), %v (task %q)", res, res.StructuredContent, err, task)
	}
	plain, err := c.CallTool(t.Context(), "sum", map[string]int{"a": 2, "b": 3})
	if err != nil || string(plain.StructuredContent) != string(res.StructuredContent) {
		t.Errorf("plainly: %+v, %v", plain, err)
	}
}
