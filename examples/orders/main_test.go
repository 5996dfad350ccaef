package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/route"
	"github.com/ferry-mcp/ferry/schema"
	"github.com/google/go-cmp/cmp"
)

// Keys of the tests: ada may write, bob may only read.
const (
	adaKey = "k-ada"
	bobKey = "k-bob"
)

// testApp is the service over a new database, served over HTTP.
type testApp struct {
	*App
	url  string
	logs *ferrytest.Buffer
}

// newTestApp builds the service; extra, if not nil, adds routes and tools
// before it serves.
func newTestApp(t *testing.T, extra func(a *App)) *testApp {
	t.Helper()
	store, err := OpenStore(t.Context(), filepath.Join(t.TempDir(), "orders.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if err := seed(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	logs := new(ferrytest.Buffer)
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	app := NewApp(store, map[string]Key{adaKey: {User: "ada", Write: true}, bobKey: {User: "bob"}}, logger, nil)
	if extra != nil {
		extra(app)
	}
	ts := httptest.NewServer(app.Handler())
	t.Cleanup(ts.Close)
	return &testApp{App: app, url: ts.URL, logs: logs}
}

// era is how a test speaks MCP.
type era string

const (
	modern era = "2026-07-28"
	legacy era = "2025-11-25"
)

var eras = []era{modern, legacy}

// result is a tools/call's result as a client reads it.
type result struct {
	Text       string
	Structured json.RawMessage
	IsError    bool
}

// call calls tool with args as the holder of key, in era e, through
// ferrytest's client; the extra header pairs go with every request.
func (a *testApp) call(t *testing.T, e era, key, tool, args string, header ...string) result {
	t.Helper()
	return a.callOn(t.Context(), t, a.client(t, e, key, header...), tool, args)
}

// client connects to /mcp in era e, as the holder of key (none if empty),
// sending the extra header pairs with every request.
func (a *testApp) client(t *testing.T, e era, key string, header ...string) *ferrytest.Client {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return ferrytest.DialHTTP(t, a.url+"/mcp", &ferrytest.Options{Protocol: string(e), Header: h})
}

// callOn calls tool with args through c. It reports a failure with
// t.Errorf, unless ctx ended, so it may run on any goroutine.
func (a *testApp) callOn(ctx context.Context, t *testing.T, c *ferrytest.Client, tool, args string) result {
	t.Helper()
	res, err := c.Raw().CallTool(ctx, tool, json.RawMessage(args))
	if err != nil {
		if ctx.Err() == nil {
			t.Errorf("tools/call %s: %v", tool, err)
		}
		return result{}
	}
	r := result{Structured: res.StructuredContent, IsError: res.IsError}
	for _, c := range res.Content {
		r.Text += c.Text
	}
	return r
}

// rest calls the API as any other client does.
func (a *testApp) rest(t *testing.T, method, path, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), method, a.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

func TestToolsAnswerAsTheAPIDoes(t *testing.T) {
	a := newTestApp(t, nil)
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			got := a.call(t, e, bobKey, "get_order", `{"id":"A-1"}`)
			want := `{"id":"A-1","customer":"Ada Lovelace","status":"open","lines":[{"sku":"PEN-BLUE","qty":3}]}`
			if strings.TrimSpace(got.Text) != want || string(got.Structured) != strings.TrimSpace(got.Text) || got.IsError {
				t.Errorf("get_order: %+v", got)
			}
			if _, rest := a.rest(t, "GET", "/api/orders/A-1", bobKey, ""); strings.TrimSpace(rest) != want {
				t.Errorf("the API answered %s, the tool %s", rest, got.Text)
			}
			if got := a.call(t, e, bobKey, "list_orders", `{"status":"shipped"}`); strings.TrimSpace(got.Text) != `{"ids":["A-2"]}` {
				t.Errorf("list_orders: %+v", got)
			}
		})
	}
}

func TestTheMiddlewareDecidesForToolCallsToo(t *testing.T) {
	a := newTestApp(t, nil)
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			if got := a.call(t, e, bobKey, "cancel_order", `{"id":"A-1"}`); got.Text != "forbidden: This API key may only read; bob cannot change orders." || !got.IsError {
				t.Errorf("a read key: %+v", got)
			}
			if got := a.call(t, e, "", "get_order", `{"id":"A-1"}`); got.Text != "forbidden: An API key is required: send it as a bearer token." {
				t.Errorf("no key: %+v", got)
			}
			if got := a.call(t, e, "wrong", "get_order", `{"id":"A-1"}`); !strings.HasPrefix(got.Text, "forbidden: ") {
				t.Errorf("a wrong key: %+v", got)
			}
		})
	}
	if o, _ := a.Store.Order(t.Context(), "A-1"); o.Status != "open" {
		t.Errorf("A-1 is %s after refused calls", o.Status)
	}
	// The audit records say which tool each agent's request was for.
	var audited []string
	for _, rec := range a.logs.Records(t, "api") {
		if rec["agent"] == true {
			audited = append(audited, fmt.Sprint(rec["method"], " ", rec["path"], " ", rec["tool"], " ", rec["user"]))
		}
	}
	if !slices.Contains(audited, "POST /api/orders/A-1/cancel cancel_order bob") {
		t.Errorf("audit records %q", audited)
	}
}

func TestAnXAPIKeyHeaderReachesTheAPI(t *testing.T) {
	a := newTestApp(t, nil)
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			got := a.call(t, e, "", "get_order", `{"id":"A-1"}`, "X-API-Key", bobKey)
			if got.IsError || !strings.Contains(got.Text, `"id":"A-1"`) {
				t.Errorf("get_order with X-API-Key: %+v", got)
			}
			got = a.call(t, e, "", "cancel_order", `{"id":"A-1"}`, "X-API-Key", bobKey)
			if got.Text != "forbidden: This API key may only read; bob cannot change orders." {
				t.Errorf("cancel_order with a read key in X-API-Key: %+v", got)
			}
		})
	}
}

func TestProblemsReachTheModelAsRefusals(t *testing.T) {
	a := newTestApp(t, nil)
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			tests := []struct{ tool, args, want string }{
				{"get_order", `{"id":"Z-9"}`, "not-found: No such order."},
				{"cancel_order", `{"id":"A-2"}`, "conflict: Order A-2 has shipped; it can no longer be cancelled."},
				{"create_order", `{"id":"A-1","customer":"Ada","lines":[{"sku":"PEN-RED","qty":1}]}`, "conflict: Order A-1 exists already."},
				{"create_order", `{"id":"order 7","customer":"Ada","lines":[{"sku":"PEN-RED","qty":1},{"sku":"PEN-GOLD","qty":2},{"sku":"INK-5L","qty":1}]}`,
					"invalid: The order is not valid.\n" +
						"- id: must be a letter, a dash and up to 8 digits, like A-1042\n" +
						"- lines[1].sku: no product has this SKU\n" +
						"- lines[2].sku: no product has this SKU"},
			}
			for _, tt := range tests {
				if got := a.call(t, e, adaKey, tt.tool, tt.args); got.Text != tt.want || !got.IsError {
					t.Errorf("%s %s: got %q, want %q", tt.tool, tt.args, got.Text, tt.want)
				}
			}
		})
	}
}

// maskedRef is the reference of a masked failure.
var maskedRef = regexp.MustCompile(`^the tool failed unexpectedly \(ref ([0-9a-f]+)\)$`)

func TestAFailureIsMaskedAndLoggedWithItsRequestID(t *testing.T) {
	a := newTestApp(t, nil)
	for _, e := range eras {
		got := a.call(t, e, bobKey, "get_invoice", `{"id":"A-1"}`)
		m := maskedRef.FindStringSubmatch(got.Text)
		if m == nil || !got.IsError {
			t.Fatalf("%s: %+v, want a masked failure", e, got)
		}
		var logged string
		for _, rec := range a.logs.Records(t, "tool failed unexpectedly") {
			if rec["ref"] == m[1] {
				logged, _ = rec["err"].(string)
			}
		}
		id := regexp.MustCompile(`^route: GET /api/orders/A-1/invoice answered 500 Internal Server Error \(request id ([0-9a-f]{16})\)`).FindStringSubmatch(logged)
		if id == nil {
			t.Fatalf("%s: the ref's record holds %q", e, logged)
		}
		// The service's own log of the failure carries the same id.
		var found bool
		for _, rec := range a.logs.Records(t, "request failed") {
			found = found || (rec["request_id"] == id[1] && strings.Contains(rec["err"].(string), "not configured"))
		}
		if !found {
			t.Errorf("%s: no service log record with request id %s:\n%s", e, id[1], a.logs)
		}
		if strings.Contains(got.Text, "configured") {
			t.Errorf("%s: the model read the failure: %q", e, got.Text)
		}
	}
}

// headersSeen is what the headers route saw.
type headersSeen struct {
	Header    http.Header `json:"header"`
	Agent     string      `json:"agent"`
	Principal string      `json:"principal"`
}

func TestTheNamedHeadersArriveAndNothingElse(t *testing.T) {
	a := newTestApp(t, func(a *App) {
		a.Mux.HandleFunc("GET /api/debug/headers", func(w http.ResponseWriter, r *http.Request) {
			s := headersSeen{Header: r.Header}
			s.Agent, _ = route.FromAgent(r)
			if p, ok := ferry.PrincipalFromContext(r.Context()); ok {
				s.Principal = p.Subject
			}
			writeJSON(w, http.StatusOK, s)
		})
		b := route.New(a.MCP, a.API, &route.Options{Prefix: "/api", Router: route.ServeMux(a.Mux), Forward: []string{"X-Tenant"}})
		route.AddTool[struct{}](b, ferry.Tool{Name: "debug_headers", Description: "Says what arrived."}, "GET /debug/headers")
	})
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			got := a.call(t, e, bobKey, "debug_headers", `{}`, "X-Tenant", "acme", "X-Secret", "s3cret", "Cookie", "c=1",
				"Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "User-Agent", "t/1")
			var s headersSeen
			if err := json.Unmarshal(got.Structured, &s); err != nil {
				t.Fatalf("%+v: %v", got, err)
			}
			var names []string
			for k := range s.Header {
				names = append(names, k)
			}
			slices.Sort(names)
			want := []string{"Accept", "Authorization", "Cookie", "Mcp-Tool", "Traceparent", "X-Request-Id", "X-Tenant"}
			if e == legacy {
				want = []string{"Accept", "Authorization", "Cookie", "Mcp-Session-Id", "Mcp-Tool", "Traceparent", "X-Request-Id", "X-Tenant"}
			}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			if s.Header.Get("Authorization") != "Bearer "+bobKey || s.Header.Get("X-Tenant") != "acme" || s.Agent != "debug_headers" {
				t.Errorf("seen %+v", s)
			}
		})
	}
}

func TestCancellingACallCancelsTheHandlersContext(t *testing.T) {
	started, ended := make(chan struct{}), make(chan error, 1)
	a := newTestApp(t, func(a *App) {
		a.Mux.HandleFunc("GET /api/debug/slow", func(w http.ResponseWriter, r *http.Request) {
			close(started)
			select {
			case <-r.Context().Done():
				ended <- r.Context().Err()
			case <-time.After(10 * time.Second):
				ended <- nil
			}
		})
		b := route.New(a.MCP, a.API, &route.Options{Prefix: "/api", Router: route.ServeMux(a.Mux)})
		route.AddTool[struct{}](b, ferry.Tool{Name: "debug_slow", Description: "Takes its time."}, "GET /debug/slow")
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	c := a.client(t, modern, bobKey)
	go func() {
		defer close(done)
		a.callOn(ctx, t, c, "debug_slow", `{}`)
	}()
	<-started
	cancel() // the client goes away: the MCP request's context ends
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the handler's context ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the handler's context did not end")
	}
	<-done
}

func TestMonthEndStopsAtTheFirstRefusal(t *testing.T) {
	a := newTestApp(t, nil)
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			period := map[era]string{modern: "2026-10", legacy: "2026-09"}[e]
			if got := a.call(t, e, adaKey, "month_end", `{"period":"`+period+`","amount_cents":1200}`); got.Text != "Closed "+period+": the accruals are posted and the period is locked." {
				t.Errorf("an open period: %+v", got)
			}
			// Again: the accruals are refused, and nothing is written after.
			if got := a.call(t, e, adaKey, "month_end", `{"period":"`+period+`"}`); got.Text != "conflict: Period "+period+" is locked." || !got.IsError {
				t.Errorf("a closed period: %+v", got)
			}
			if n, _ := a.Store.Accruals(t.Context(), period); n != 1 {
				t.Errorf("%s has %d accruals, want 1", period, n)
			}
		})
	}
	// Locked by someone else through the API: the job's first question is
	// refused, and it does not lock.
	if status, body := a.rest(t, "POST", "/api/ledger/periods/2026-11/lock", adaKey, ""); status != http.StatusNoContent {
		t.Fatalf("locking: %d %s", status, body)
	}
	a.logs.Reset()
	if got := a.call(t, modern, adaKey, "month_end", `{"period":"2026-11"}`); got.Text != "conflict: Period 2026-11 is locked." {
		t.Errorf("a period locked through the API: %+v", got)
	}
	var asked []string
	for _, rec := range a.logs.Records(t, "api") {
		asked = append(asked, fmt.Sprint(rec["method"], " ", rec["path"], " ", rec["tool"]))
	}
	if want := []string{"POST /api/ledger/accruals month_end"}; !slices.Equal(asked, want) {
		t.Errorf("the job asked %q, want %q", asked, want)
	}
	// A read key cannot run the job: the middleware refuses its first question.
	if got := a.call(t, modern, bobKey, "month_end", `{"period":"2026-12"}`); !strings.HasPrefix(got.Text, "forbidden: ") {
		t.Errorf("bob's month end: %+v", got)
	}
	if locked, _ := a.Store.Locked(t.Context(), "2026-12"); locked {
		t.Error("bob locked 2026-12")
	}
}

func TestAMissingRouteFailsStartUp(t *testing.T) {
	store, err := OpenStore(t.Context(), filepath.Join(t.TempDir(), "orders.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	mux := http.NewServeMux()
	(&API{store: store, logger: slog.New(slog.DiscardHandler), products: products}).Routes(mux)
	// A service that lost a route its tool is bound to.
	partial := http.NewServeMux()
	partial.Handle("GET /api/orders/{id}", mux)
	srv := NewMCP(partial, partial, slog.New(slog.DiscardHandler), nil)
	err = srv.Check()
	if err == nil || !strings.Contains(err.Error(), `route: tool "cancel_order", route "POST /api/orders/{id}/cancel": the mux serves no such route`) {
		t.Fatalf("Check: %v", err)
	}
	if strings.Contains(err.Error(), `"get_order"`) {
		t.Errorf("Check reports a route that exists: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("NewHTTPHandler served a server whose routes are missing")
		}
	}()
	ferry.NewHTTPHandler(srv, nil)
}

func TestTheCatalogSaysWhichToolsWrite(t *testing.T) {
	a := newTestApp(t, nil)
	writes := map[string]bool{}
	for _, info := range a.MCP.Catalog().Tools() {
		writes[info.Name] = info.Writes()
	}
	want := map[string]bool{"get_order": false, "list_orders": false, "get_invoice": false,
		"create_order": true, "cancel_order": true, "month_end": true}
	if diff := cmp.Diff(want, writes); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}

// The API's answers fit the output schemas its tools advertise.
func TestAnswersFitTheOutputSchemas(t *testing.T) {
	a := newTestApp(t, nil)
	check := func(name string, s *schema.Schema, err error, r result) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		v, err := schema.Compile(s, schema.Strict)
		if err != nil {
			t.Fatal(err)
		}
		if r.IsError || r.Structured == nil {
			t.Fatalf("%s: %+v", name, r)
		}
		if _, errs := v.Validate(r.Structured); len(errs) > 0 {
			t.Errorf("%s answered %s, which its output schema refuses:\n%v", name, r.Structured, errs)
		}
	}
	orderSchema, err := schema.For[Order](nil)
	check("get_order", orderSchema, err, a.call(t, modern, bobKey, "get_order", `{"id":"A-1"}`))
	check("create_order", orderSchema, err, a.call(t, modern, adaKey, "create_order", `{"id":"B-1","customer":"Bo","lines":[{"sku":"INK-1L","qty":2}]}`))
	check("cancel_order", orderSchema, err, a.call(t, modern, adaKey, "cancel_order", `{"id":"B-1"}`))
	listSchema, err := schema.For[OrderList](nil)
	check("list_orders", listSchema, err, a.call(t, modern, bobKey, "list_orders", `{}`))
}

// A browser's X-Request-Id is not what the audit records: only a routed
// request has an id, and it comes from the binding, not a header.
func TestAForgedRequestIDIsNotAudited(t *testing.T) {
	a := newTestApp(t, nil)
	req, err := http.NewRequestWithContext(t.Context(), "GET", a.url+"/api/orders/A-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+bobKey)
	req.Header.Set("X-Request-Id", "forged-id")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	recs := a.logs.Records(t, "api")
	if len(recs) != 1 || recs[0]["request_id"] != "" || recs[0]["user"] != "bob" {
		t.Errorf("audit records %v, want one for bob with no request id", recs)
	}
}

// The package comment's run instructions hold: the example runs from the
// repository root too, since go.work lists its module.
func TestRunsFromTheRepositoryRoot(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(src), "\npackage main")
	if !strings.Contains(doc, "go run ./examples/orders") || strings.Contains(doc, "does not contain") {
		t.Errorf("the package comment does not say that go run ./examples/orders works from the repository root:\n%s", doc)
	}
	build := exec.CommandContext(t.Context(), "go", "build", "-o", filepath.Join(t.TempDir(), "orders"), "./examples/orders")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("go build ./examples/orders from the repository root: %v\n%s", err, out)
	}
}

// The keys come from the environment where no flag gives them, and
// never show in the usage text that -h or a mistyped flag prints.
func TestFlagsNeverPrintTheEnvironmentsKeys(t *testing.T) {
	env := map[string]string{"ORDERS_KEYS": "k-secret-1=ada:write", "ORDERS_AS": "k-secret-1"}
	getenv := func(k string) string { return env[k] }
	for _, args := range [][]string{{"-h"}, {"-nosuchflag"}} {
		var usage strings.Builder
		_, err := parseFlags(args, getenv, &usage)
		if err == nil {
			t.Errorf("%v: no error", args)
		}
		if strings.Contains(usage.String(), "k-secret") || !strings.Contains(usage.String(), "$ORDERS_KEYS") {
			t.Errorf("%v printed:\n%s", args, usage.String())
		}
	}
	o, err := parseFlags(nil, getenv, &strings.Builder{})
	if err != nil || o.keyList != env["ORDERS_KEYS"] || o.as != env["ORDERS_AS"] {
		t.Errorf("no flags: %+v, %v; want the environment's keys", o, err)
	}
	o, _ = parseFlags([]string{"-keys", "k-flag=bob:read", "-as", "k-flag"}, getenv, &strings.Builder{})
	if o.keyList != "k-flag=bob:read" || o.as != "k-flag" {
		t.Errorf("flags: %+v; want them over the environment", o)
	}
	if _, err := parseFlags([]string{"-h"}, getenv, &strings.Builder{}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v; want flag.ErrHelp", err)
	}
}
