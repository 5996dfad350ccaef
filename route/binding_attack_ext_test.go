package route_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
	"github.com/google/go-cmp/cmp"
)

// Attacks on a binding through the real MCP HTTP handler: what a model (or
// a client speaking for one) can put in the arguments, and what a broken
// route handler can do to the server.

// A wildcard's value reaches the handler as exactly that value, in its own
// segment, whatever it holds: it never climbs out of the route, and
// encoded forms stay encoded.
func TestAttackWildcardValuesStayInTheirSegment(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), nil)
	m.serve(t)
	for _, id := range []string{
		"..%2fadmin", "%2e%2e", "%2e%2e%2fadmin", "a/b", "a%2Fb", "..\\admin", "...",
		"x\x00y", "a\r\nX-Admin: yes", "a?admin=1", "a#frag", "a&b=c", "%00", " ", "\u2028", "ü",
	} {
		args, _ := json.Marshal(map[string]string{"id": id})
		for _, e := range eras {
			s := seenOf(t, m.call(t, e, "get_order", string(args)))
			if s.Values["id"] != id || s.Method != "GET" || !strings.HasPrefix(s.RequestURI, "/orders/") ||
				strings.Count(strings.TrimPrefix(s.RequestURI, "/orders/"), "/") != 0 || s.Query != nil {
				t.Errorf("%s: id %q reached the route as %+v", e, id, s)
			}
		}
	}
	// A slash in a segment travels escaped, but r.URL.Path is decoded: no
	// dot segment may hide behind one, for a middleware that cleans the
	// path.
	for _, id := range []string{"..", ".", "\u002e\u002e", "../admin", "a/../../admin", "a/.", "./a"} {
		args, _ := json.Marshal(map[string]string{"id": id})
		if got := m.call(t, modern, "get_order", string(args)); !got.IsError || !strings.Contains(got.Text, "must not") {
			t.Errorf("id %q: %+v, want it refused", id, got)
		}
	}
	// A rest wildcard keeps its slashes but no segment may climb, even
	// when JSON escapes spell the dots.
	for _, p := range []string{"a/../b", `a/\u002e\u002e/b`, "../etc/passwd", "a/./b", "/etc/passwd", "a/"} {
		got := m.call(t, modern, "read_file", `{"path":"`+p+`"}`)
		if !got.IsError || !strings.Contains(got.Text, "none of them empty") {
			t.Errorf("path %q: %+v, want it refused", p, got)
		}
	}
	for _, p := range []string{"a/%2e%2e/b", "a/..%2f/b", "a/b%00", "a\\..\\b"} {
		args, _ := json.Marshal(map[string]string{"path": p})
		s := seenOf(t, m.call(t, modern, "read_file", string(args)))
		if s.Values["path"] != p || !strings.HasPrefix(s.Path, "/files/") {
			t.Errorf("path %q reached the route as %+v", p, s)
		}
	}
}

// Query values and names cannot add parameters, end the query or start a
// fragment.
func TestAttackQueryValuesCannotInject(t *testing.T) {
	m := newMCPServer(t)
	b := testBinding(m, service(nil), nil)
	b.AddTool(ferry.Tool{Name: "loose_status", Description: "Says how things are, loosely.",
		RawInputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /status")
	m.serve(t)
	expand := []string{"a&admin=1", "b#frag", "c?d=e", "f=g", "h+i", "j%26k", "l\r\nm", "n\x00"}
	args, _ := json.Marshal(map[string]any{"id": "1", "expand": expand})
	s := seenOf(t, m.call(t, modern, "get_order", string(args)))
	if diff := cmp.Diff(map[string][]string{"expand": expand}, s.Query); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
	// An untyped tool's argument names are escaped too.
	got := m.call(t, modern, "loose_status", `{"a&admin":"1","b#":"2","c=d":"3"}`)
	var st seen
	if err := json.Unmarshal(got.Structured, &st); err != nil {
		t.Fatalf("%+v: %v", got, err)
	}
	want := map[string][]string{"a&admin": {"1"}, "b#": {"2"}, "c=d": {"3"}}
	if diff := cmp.Diff(want, st.Query); diff != "" {
		t.Errorf("query of escaped names (-want +got):\n%s", diff)
	}
}

// A header field cannot smuggle a second header, and the binding's own
// headers cannot be chosen by the options.
func TestAttackHeaderSmuggling(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), nil)
	m.serve(t)
	for _, key := range []string{"a\r\nX-Admin: yes", "a\nb", "a\rb", "a\x00b", "a\x7fb", "a\x1bb"} {
		args, _ := json.Marshal(map[string]string{"id": "1", "reason": "r", "key": key})
		got := m.call(t, modern, "cancel_order", string(args))
		if want := "invalid arguments:\n- key: must not hold control characters: it goes in a header"; got.Text != want {
			t.Errorf("key %q: %+v", key, got)
		}
	}
	for _, name := range []string{"Host", "content-length", "Transfer-Encoding", "Connection", "Mcp-Tool", "X-Request-Id", "Mcp-Session-Id", "Mcp-Name"} {
		_, problems := checkErrors(t, service(nil), &route.Options{Forward: []string{name}}, func(*route.Binding) {})
		if len(problems) != 1 || !strings.Contains(problems[0], "cannot be forwarded") {
			t.Errorf("Forward %q: %q, want it refused", name, problems)
		}
	}
	_, problems := checkErrors(t, service(nil), &route.Options{Header: http.Header{"X-Service": {"a\r\nX-Admin: yes"}}}, func(*route.Binding) {})
	if len(problems) != 1 || !strings.Contains(problems[0], "control characters") {
		t.Errorf("a fixed header holding CR/LF: %q, want it refused", problems)
	}
}

// Nothing of the MCP request travels but what the binding names: not
// another client's session id sent on a sessionless call, not any X-*
// header, not hop-by-hop headers. The Host is the MCP request's, which
// the MCP handler checked against its allowed hosts.
func TestAttackOnlyNamedHeadersTravel(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), nil)
	m.serve(t)
	got := m.call(t, modern, "status", `{}`,
		"Mcp-Session-Id", "someone-elses", "X-Forwarded-Host", "evil.example", "X-Real-Ip", "10.0.0.1",
		"X-Api-Key", "k", "Proxy-Authorization", "Basic eA==", "Te", "trailers", "Upgrade", "websocket", "Origin", "http://localhost")
	var s seen
	if err := json.Unmarshal(got.Structured, &s); err != nil {
		t.Fatalf("%+v: %v", got, err)
	}
	for k := range s.Header {
		switch k {
		case "Accept", "Mcp-Tool", "X-Request-Id":
		default:
			t.Errorf("header %s travelled: %q", k, s.Header[k])
		}
	}
	if s.Host != "localhost" { // ferrytest's in-memory requests go to http://localhost/mcp
		t.Errorf("Host %q, want the MCP request's", s.Host)
	}
}

// A handler that writes a gigabyte keeps the call's memory at the limit.
func TestAttackHandlerWritingAGigabyteIsBounded(t *testing.T) {
	m := newMCPServer(t)
	mux := service(nil)
	var writes, failed int
	mux.HandleFunc("GET /flood", func(w http.ResponseWriter, _ *http.Request) {
		chunk := make([]byte, 1<<20)
		writes, failed = 0, 0
		for range 1 << 10 { // 1 GiB, ignoring every error
			writes++
			if _, err := w.Write(chunk); errors.Is(err, route.ErrResponseTooLarge) {
				failed++
			}
		}
	})
	b := testBinding(m, mux, &route.Options{MaxResponseBytes: 64 << 10})
	route.AddTool[noIn](b, ferry.Tool{Name: "flood", Description: "Writes a lot."}, "GET /flood")
	m.serve(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := m.call(t, modern, "flood", `{}`)
	runtime.ReadMemStats(&after)
	if !strings.HasSuffix(got.Text, "\n[cut: the answer is longer than 65536 bytes, which is all this tool reads]") ||
		len(got.Text) > 70<<10 {
		t.Errorf("got %d bytes ending %q", len(got.Text), got.Text[max(0, len(got.Text)-80):])
	}
	if writes != 1024 || failed != 1024 {
		t.Errorf("%d writes, %d failed; want 1024 and 1024", writes, failed)
	}
	// The handler's own chunk is 1 MiB; the binding must add no more than
	// a few times the limit, not the gigabyte.
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 32<<20 {
		t.Errorf("the call allocated %d MiB", grown>>20)
	}
}

// A handler that keeps its ResponseWriter and writes after it returned
// writes into nothing: not into the call's answer, nor into another
// call's, and it races with nothing (run under -race).
func TestAttackHandlerWritingAfterItReturned(t *testing.T) {
	m := newMCPServer(t)
	mux := service(nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []error
	note := func(err error) {
		if err != nil && err.Error() != "route: write after the handler returned" {
			mu.Lock()
			bad = append(bad, err)
			mu.Unlock()
		}
	}
	mux.HandleFunc("GET /leak", func(w http.ResponseWriter, _ *http.Request) {
		returned := make(chan struct{})
		defer close(returned)
		wg.Go(func() {
			<-returned
			for range 100 {
				_, err := io.WriteString(w, "LEAKED")
				note(err)
				_, err = w.Write([]byte("LEAKED"))
				note(err)
				w.WriteHeader(http.StatusTeapot)
				_ = w.Header()
				time.Sleep(time.Millisecond)
			}
		})
		_, _ = io.WriteString(w, "ok")
	})
	b := testBinding(m, mux, nil)
	route.AddTool[noIn](b, ferry.Tool{Name: "leak", Description: "Keeps its writer."}, "GET /leak")
	m.serve(t)
	for range 10 {
		// Writes between the handler's return and ServeHTTP's (its own
		// defers) are still the call's, as under net/http; none after.
		if got := m.call(t, modern, "leak", `{}`); strings.ReplaceAll(strings.TrimPrefix(got.Text, "ok"), "LEAKED", "") != "" {
			t.Errorf("a leaked write after the answer: %q", got.Text)
		}
		for i := range 5 {
			r := m.call(t, modern, "respond", respondArgs(200, "text/plain", fmt.Sprint("answer ", i)))
			if r.Text != fmt.Sprint("answer ", i) {
				t.Fatalf("another call's answer is %q", r.Text)
			}
		}
	}
	wg.Wait()
	for _, err := range bad {
		t.Errorf("a write after return: %v", err)
	}
}

// A handler that ignores its context holds the call, as under net/http;
// http.TimeoutHandler, as the package documents, bounds it, and the model
// reads that the service is unavailable.
func TestAttackHandlerThatNeverReturnsIsBoundedByTimeoutHandler(t *testing.T) {
	m := newMCPServer(t)
	mux := service(nil)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	mux.Handle("GET /stuck", http.TimeoutHandler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		<-release // ignores its context
	}), 100*time.Millisecond, "The service took too long."))
	b := testBinding(m, mux, nil)
	route.AddTool[noIn](b, ferry.Tool{Name: "stuck", Description: "Never answers."}, "GET /stuck")
	m.serve(t)
	start := time.Now()
	got := m.call(t, modern, "stuck", `{}`)
	// TimeoutHandler sets no Content-Type: its message is read as the
	// text net/http would sniff it as.
	if want := "unavailable: The service took too long."; got.Text != want || !got.IsError {
		t.Errorf("got %+v, want %q", got, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %v", d)
	}
}

// A problem document that is huge, malformed, or full of control
// characters becomes a short, one-line refusal.
func TestAttackProblemDocumentsAreBounded(t *testing.T) {
	m := newMCPServer(t)
	mux := service(nil)
	mux.HandleFunc("GET /problem", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		switch r.URL.Query().Get("kind") {
		case "huge":
			_, _ = io.WriteString(w, `{"detail":"`+strings.Repeat("a", 3<<20)+`"}`)
		case "long":
			_, _ = io.WriteString(w, `{"detail":"`+strings.Repeat("b", 5000)+`"}`)
		case "malformed":
			_, _ = io.WriteString(w, `{"detail":"No such order.",`)
		case "controls":
			_, _ = io.WriteString(w, `{"detail":"No\u001b[31m such\r\norder\u0085\u009b2J\u2028here\u0000."}`)
		case "errors":
			var errs []string
			for i := range 1000 {
				errs = append(errs, fmt.Sprintf(`{"location":"body.items[%d]","message":"bad\nline"}`, i))
			}
			_, _ = io.WriteString(w, `{"detail":"Bad items.","errors":[`+strings.Join(errs, ",")+`]}`)
		case "deep":
			_, _ = io.WriteString(w, `{"detail":"Deep.","errors":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+`}`)
		}
	})
	b := testBinding(m, mux, nil)
	type problemIn struct {
		Kind string `json:"kind" doc:"Which problem."`
	}
	route.AddTool[problemIn](b, ferry.Tool{Name: "problem", Description: "Answers a problem."}, "GET /problem")
	m.serve(t)
	tests := []struct{ kind, want string }{
		{"huge", "not-found: Not Found."},
		{"long", "not-found: " + strings.Repeat("b", 500) + "…."},
		{"malformed", "not-found: Not Found."},
		{"controls", "not-found: No [31m such  order  2J here ."},
		{"deep", "not-found: Not Found."},
	}
	for _, tt := range tests {
		if got := m.call(t, modern, "problem", `{"kind":"`+tt.kind+`"}`); got.Text != tt.want || !got.IsError {
			t.Errorf("%s: got %q, want %q", tt.kind, got.Text, tt.want)
		}
	}
	got := m.call(t, modern, "problem", `{"kind":"errors"}`)
	lines := strings.Split(got.Text, "\n")
	if len(lines) != 22 || lines[0] != "not-found: Bad items." || lines[1] != "- body.items[0]: bad line" || lines[21] != "- and 980 more" {
		t.Errorf("errors: %d lines: %q", len(lines), got.Text[:min(len(got.Text), 300)])
	}
}

// Deep and large arguments do not crash the binding; what it cannot place
// is refused before anything is served.
func TestAttackHugeAndDeepArguments(t *testing.T) {
	m := newMCPServer(t)
	b := testBinding(m, service(nil), nil)
	b.AddTool(ferry.Tool{Name: "loose_order", Description: "Fetches an order, loosely.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"id":{}}}`)}, "GET /orders/{id}")
	m.serve(t)
	// The server refuses JSON nested past ferry.DefaultMaxJSONDepth (HTTP
	// 400) before any tool sees it; below that, the binding refuses what
	// it cannot place.
	deep := strings.Repeat("[", 50) + strings.Repeat("]", 50)
	got := m.call(t, modern, "loose_order", `{"id":"1","x":`+deep+`}`)
	if !got.IsError || !strings.Contains(got.Text, "x: must be a list of strings") {
		t.Errorf("deep query value: %+v", got)
	}
	got = m.call(t, modern, "loose_order", `{"id":`+deep+`}`)
	if !got.IsError || !strings.Contains(got.Text, "id: must be a string") {
		t.Errorf("deep wildcard value: %+v", got)
	}
	long := strings.Repeat("x", 200<<10)
	s := seenOf(t, m.call(t, modern, "get_order", `{"id":"`+long+`"}`))
	if s.Values["id"] != long {
		t.Errorf("a long id arrived as %d bytes", len(s.Values["id"]))
	}
}

// Ask outside a tool call, or from a job after its call ended, refuses.
func TestAttackAskOutsideACall(t *testing.T) {
	m := newMCPServer(t)
	b := testBinding(m, service(nil), nil)
	route.AddJob(b, ferry.Tool{Name: "asker", Description: "Asks."}, func(ctx context.Context, _ noIn) (string, error) {
		a, err := route.Ask(ctx, "GET /status", nil)
		if err != nil {
			return "", err
		}
		return string(a.Body), nil
	})
	var ran atomic.Int64
	mux := service(nil)
	mux.HandleFunc("GET /count", func(http.ResponseWriter, *http.Request) { ran.Add(1) })
	late := route.New(m.srv, mux, nil)
	route.AddJob(late, ferry.Tool{Name: "late_asker", Description: "Asks after its context ended."}, func(ctx context.Context, _ noIn) (string, error) {
		ended, cancel := context.WithCancel(ctx)
		cancel()
		_, err := route.Ask(ended, "GET /count", nil)
		return fmt.Sprint(err), nil
	})
	m.serve(t)
	if got := m.call(t, modern, "late_asker", `{}`); !strings.HasSuffix(got.Text, "context canceled") || ran.Load() != 0 {
		t.Errorf("Ask with an ended context: %q, and the route ran %d times", got.Text, ran.Load())
	}
	if got := m.call(t, modern, "asker", `{}`, "Authorization", "Bearer t"); !strings.Contains(got.Text, `"Mcp-Tool":["asker"]`) ||
		!strings.Contains(got.Text, `"Authorization":["Bearer t"]`) {
		t.Errorf("a job's question: %+v", got)
	}
	if _, err := route.Ask(context.Background(), "GET /status", nil); err == nil {
		t.Error("route.Ask with a bare context succeeded")
	}
	if _, err := b.Ask(context.Background(), "GET /status", nil); err == nil {
		t.Error("Binding.Ask with a bare context succeeded")
	}
}
