package workbench_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/workbench"
)

// TestTraceRecordsEachOutcome calls the test server's tools, prompt and
// resource, and checks the event each leaves: method, name, caller,
// outcome, code and message.
func TestTraceRecordsEachOutcome(t *testing.T) {
	s := newSite(t, nil)
	c := s.client(t, otherKey)
	ctx := t.Context()
	c.CallTool(ctx, "echo", map[string]any{"text": "a"})
	c.CallTool(ctx, "refuse", map[string]any{"text": "7"})
	c.CallTool(ctx, "echo", map[string]any{"text": "", "n": 9})
	c.CallTool(ctx, "fail", map[string]any{"text": "a"})
	c.CallTool(ctx, "crash", map[string]any{"text": "a"})
	if _, err := c.Raw().CallTool(ctx, "nope", nil); err == nil {
		t.Error("nope: no error")
	}
	c.GetPrompt(ctx, "brief", map[string]string{"topic": "tea"})
	c.ReadResource(ctx, "test://note")
	c.ListTools(ctx) // not traced

	p, _ := s.readTrace(t, "0")
	type row struct{ method, name, caller, outcome, code, message string }
	want := []row{
		{"tools/call", "echo", "other", "ok", "", ""},
		{"tools/call", "refuse", "other", "refused", "not-found", "no order 7"},
		{"tools/call", "echo", "other", "refused", "invalid", "n: must be at most 5, got 9; text: must be at least 1 character, got 0"},
		// A tool's own error and its panic are masked behind a reference.
		{"tools/call", "fail", "other", "tool-error", "", "the tool failed unexpectedly (ref "},
		{"tools/call", "crash", "other", "tool-error", "", "the tool failed unexpectedly (ref "},
		{"tools/call", "nope", "other", "error", "-32602", ""},
		{"prompts/get", "brief", "other", "ok", "", ""},
		{"resources/read", "test://note", "other", "ok", "", ""},
	}
	if len(p.Events) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(p.Events), len(want), p.Events)
	}
	for i, w := range want {
		e := p.Events[i]
		got := row{e.Method, e.Name, e.Caller, e.Outcome, e.Code, e.Message}
		if w.message != "" && strings.HasPrefix(got.message, w.message) {
			got.message = w.message // the reference varies
		}
		if w.message == "" && w.outcome == "error" {
			got.message = ""
		}
		if got != w {
			t.Errorf("event %d: %+v\nwant     %+v", i+1, got, w)
		}
		if e.Seq != uint64(i+1) {
			t.Errorf("event %d: seq %d", i+1, e.Seq)
		}
		if e.Client != "ferrytest" { // the name ferrytest's client gives itself
			t.Errorf("event %d: client %q", i+1, e.Client)
		}
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", e.Time); err != nil {
			t.Errorf("event %d: time %q: %v", i+1, e.Time, err)
		}
		if e.DurationMs < 0 {
			t.Errorf("event %d: duration %v", i+1, e.DurationMs)
		}
	}
	if p.Next != uint64(len(want)) {
		t.Errorf("next %d, want %d", p.Next, len(want))
	}
	if p2, _ := s.readTrace(t, fmt.Sprint(p.Next)); len(p2.Events) != 0 || p2.Next != p.Next {
		t.Errorf("after next: %+v", p2)
	}
}

// TestTraceNeverHoldsArgumentsOrResults calls with a secret argument
// that a tool returns in its result and a resource that holds a secret,
// and checks that the trace holds neither.
func TestTraceNeverHoldsArgumentsOrResults(t *testing.T) {
	s := newSite(t, nil)
	c := s.client(t, readerKey)
	c.CallTool(t.Context(), "echo", map[string]any{"text": secretArg})
	c.CallTool(t.Context(), "fail", map[string]any{"text": secretArg})
	c.ReadResource(t.Context(), "test://note")
	_, body := s.readTrace(t, "0")
	for _, secret := range []string{secretArg, secretResult} {
		if strings.Contains(body, secret) {
			t.Errorf("the trace holds %q:\n%s", secret, body)
		}
	}
	for _, e := range s.trace.Events(0) {
		if strings.Contains(fmt.Sprintf("%+v", e), secretArg) {
			t.Errorf("an event holds the argument: %+v", e)
		}
	}
}

// TestTraceIsBounded checks that a trace keeps its last Size events, and
// that Size is capped.
func TestTraceIsBounded(t *testing.T) {
	s := newSite(t, &workbench.TraceOptions{Size: 3})
	c := s.client(t, readerKey)
	for i := range 10 {
		c.CallTool(t.Context(), "echo", map[string]any{"text": fmt.Sprint(i)})
	}
	p, _ := s.readTrace(t, "0")
	var seqs []uint64
	for _, e := range p.Events {
		seqs = append(seqs, e.Seq)
	}
	if fmt.Sprint(seqs) != "[8 9 10]" || p.Next != 10 {
		t.Errorf("seqs %v next %d, want [8 9 10] next 10", seqs, p.Next)
	}
	if p, _ := s.readTrace(t, "8"); len(p.Events) != 2 || p.Events[0].Seq != 9 {
		t.Errorf("after 8: %+v", p.Events)
	}

	big := workbench.NewTrace(&workbench.TraceOptions{Size: 1 << 30})
	info := &ferry.RequestInfo{Method: "tools/call", Name: "x", Target: ferry.TargetTool}
	for range workbench.MaxTraceSize + 5 {
		big.End(t.Context(), info, ferry.RequestEnd{})
	}
	if n := len(big.Events(0)); n != workbench.MaxTraceSize {
		t.Errorf("a trace of size 1<<30 holds %d events, want the cap %d", n, workbench.MaxTraceSize)
	}
}

// TestTraceTaskOutcomes checks how the calls that ran as tasks read: as
// their tasks ended.
func TestTraceTaskOutcomes(t *testing.T) {
	tr := workbench.NewTrace(nil)
	info := &ferry.RequestInfo{Method: "tools/call", Name: "report", Target: ferry.TargetTool}
	for _, end := range []ferry.RequestEnd{
		{Task: ferry.TaskCompleted, Result: []byte(`{"content":[{"type":"text","text":"done"}]}`)},
		{Task: ferry.TaskCompleted, ToolError: true, Result: []byte(`{"content":[{"type":"text","text":"conflict: the order shipped"}],"isError":true}`)},
		{Task: ferry.TaskFailed, ErrorCode: ferry.CodeInternalError, ErrorMessage: "internal error (ref abc)"},
		{Task: ferry.TaskFailed},
		{Task: ferry.TaskCancelled},
	} {
		tr.End(t.Context(), info, end)
	}
	var got []string
	for _, e := range tr.Events(0) {
		got = append(got, e.Outcome+"|"+e.Code+"|"+e.Message)
	}
	want := []string{"ok||", "refused|conflict|the order shipped", "error|-32603|internal error (ref abc)", "error||", "error|cancelled|the task was cancelled"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTraceBoundsWhatClientsChoose checks that a long name (an unknown
// tool's, which the client chose) and a long message are cut.
func TestTraceBoundsWhatClientsChoose(t *testing.T) {
	tr := workbench.NewTrace(nil)
	long := strings.Repeat("é", 10000)
	tr.End(t.Context(), &ferry.RequestInfo{Method: "tools/call", Name: long, Target: ferry.TargetTool, Unknown: true},
		ferry.RequestEnd{ErrorCode: ferry.CodeInvalidParams, ErrorMessage: "unknown tool " + long})
	e := tr.Events(0)[0]
	if len(e.Name) > 256 || !strings.HasPrefix(long, e.Name) {
		t.Errorf("name of %d bytes, not a prefix cut at a character", len(e.Name))
	}
	if n := len([]rune(e.Message)); n != workbench.MaxMessageRunes || !strings.HasSuffix(e.Message, "…") {
		t.Errorf("message of %d characters: %.40q", n, e.Message)
	}
}

// TestTraceRefusedWithoutCredential checks the trace endpoint's
// authentication and caller check.
func TestTraceRefusedWithoutCredential(t *testing.T) {
	s := newSite(t, nil)
	s.client(t, readerKey).CallTool(t.Context(), "echo", map[string]any{"text": "a"})
	tests := []struct {
		name   string
		header http.Header
		status int
	}{
		{"no credential", nil, http.StatusUnauthorized},
		{"wrong key", http.Header{"Authorization": {"Bearer not-a-key-0123456789"}}, http.StatusUnauthorized},
		{"key in the query", nil, http.StatusBadRequest},
		{"a caller the check refuses", http.Header{"Authorization": {"Bearer " + otherKey}}, http.StatusForbidden},
		{"the reader", http.Header{"Authorization": {"Bearer " + readerKey}}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := "/ui/trace?after=0"
			if tt.name == "key in the query" {
				target += "&access_token=" + readerKey
			}
			res := s.get(t, "GET", target, tt.header)
			body := readAll(t, res)
			if res.StatusCode != tt.status {
				t.Errorf("%d, want %d: %s", res.StatusCode, tt.status, body)
			}
			if res.StatusCode != http.StatusOK && strings.Contains(body, "echo") {
				t.Errorf("a refusal shows the trace: %s", body)
			}
		})
	}
}

// TestTraceDefaultCheck checks that without MayReadTrace an
// authenticated caller reads the trace and an anonymous one does not.
func TestTraceDefaultCheck(t *testing.T) {
	h := ferry.NewHTTPHandler(newServer(nil), nil)
	tr := workbench.NewTrace(nil)
	wb := workbench.New(h, &workbench.Options{Trace: tr})
	for _, tt := range []struct {
		name   string
		p      *ferry.Principal
		status int
	}{{"anonymous", nil, 403}, {"authenticated", &ferry.Principal{Subject: "a"}, 200}} {
		r := httptest.NewRequestWithContext(t.Context(), "GET", "http://localhost/trace", nil)
		if tt.p != nil {
			r = r.WithContext(ferry.WithPrincipal(r.Context(), tt.p))
		}
		w := httptest.NewRecorder()
		wb.ServeHTTP(w, r)
		if w.Code != tt.status {
			t.Errorf("%s: %d, want %d", tt.name, w.Code, tt.status)
		}
	}
	// Without a trace, there is none to read.
	w := httptest.NewRecorder()
	workbench.New(h, nil).ServeHTTP(w, httptest.NewRequestWithContext(t.Context(), "GET", "http://localhost/trace", nil))
	if w.Code != http.StatusNotFound {
		t.Errorf("no trace: %d", w.Code)
	}
}

// TestTraceAfter checks the after parameter: bad values are refused, one
// beyond the newest event (a restarted server's) reads the whole trace.
func TestTraceAfter(t *testing.T) {
	s := newSite(t, nil)
	c := s.client(t, readerKey)
	c.CallTool(t.Context(), "echo", map[string]any{"text": "a"})
	c.CallTool(t.Context(), "echo", map[string]any{"text": "b"})
	reader := http.Header{"Authorization": {"Bearer " + readerKey}}
	for _, bad := range []string{"-1", "x", "1.5", "18446744073709551616", "99999999999999999999999999", "%00", "0x1"} {
		if res := s.get(t, "GET", "/ui/trace?after="+bad, reader); res.StatusCode != http.StatusBadRequest {
			t.Errorf("after=%s: %d, want 400", bad, res.StatusCode)
		}
	}
	for _, tt := range []struct {
		after  string
		events int
		next   uint64
	}{{"", 2, 2}, {"0", 2, 2}, {"1", 1, 2}, {"2", 0, 2}, {"3", 2, 2}, {"18446744073709551615", 2, 2}} {
		p, _ := s.readTrace(t, tt.after)
		if len(p.Events) != tt.events || p.Next != tt.next {
			t.Errorf("after=%q: %d events, next %d; want %d, %d", tt.after, len(p.Events), p.Next, tt.events, tt.next)
		}
	}
}

// TestTraceConcurrent records from many goroutines while reading, for
// the race detector, and checks that no event is lost or doubled.
func TestTraceConcurrent(t *testing.T) {
	tr := workbench.NewTrace(&workbench.TraceOptions{Size: 1000})
	info := &ferry.RequestInfo{Method: "tools/call", Name: "x", Target: ferry.TargetTool}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				tr.End(context.Background(), info, ferry.RequestEnd{})
				_ = tr.Events(0)
			}
		})
	}
	wg.Wait()
	events := tr.Events(0)
	if len(events) != 800 {
		t.Fatalf("%d events, want 800", len(events))
	}
	for i, e := range events {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
}

// TestJoin checks that joined observers all see every request, Start in
// order and End in reverse, with the context the Starts built.
func TestJoin(t *testing.T) {
	var log []string
	var mu sync.Mutex
	rec := func(name string) ferry.Observer { return &recorder{name: name, log: &log, mu: &mu} }
	obs := workbench.Join(rec("a"), nil, rec("b"))
	srv := newServer(obs)
	s := ferry.NewHTTPHandler(srv, nil)
	_ = s
	ctx := obs.Start(t.Context(), &ferry.RequestInfo{Method: "tools/call"})
	obs.End(ctx, &ferry.RequestInfo{Method: "tools/call"}, ferry.RequestEnd{})
	if got := strings.Join(log, " "); got != "start a start b end b(b) end a(b)" {
		t.Errorf("%s", got)
	}
	if workbench.Join() != nil || workbench.Join(nil) != nil {
		t.Error("Join of no observer is not nil")
	}
	one := rec("one")
	if workbench.Join(nil, one) != one {
		t.Error("Join of one observer is not that observer")
	}
}

type ctxKey struct{}

type recorder struct {
	name string
	log  *[]string
	mu   *sync.Mutex
}

func (r *recorder) Start(ctx context.Context, _ *ferry.RequestInfo) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.log = append(*r.log, "start "+r.name)
	return context.WithValue(ctx, ctxKey{}, r.name)
}

func (r *recorder) End(ctx context.Context, _ *ferry.RequestInfo, _ ferry.RequestEnd) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.log = append(*r.log, fmt.Sprintf("end %s(%v)", r.name, ctx.Value(ctxKey{})))
}
