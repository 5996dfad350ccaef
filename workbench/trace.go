package workbench

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry"
)

// The bounds of a [Trace].
const (
	// DefaultTraceSize is how many events a trace keeps when
	// [TraceOptions.Size] is zero.
	DefaultTraceSize = 500
	// MaxTraceSize is the most events a trace keeps, whatever
	// [TraceOptions.Size] says.
	MaxTraceSize = 10000
	// MaxMessageRunes is the most characters of an event's message: a
	// longer refusal sentence or error message is cut, and ends with "…".
	MaxMessageRunes = 300
	// maxNameBytes bounds the name of an event, which for an unknown tool
	// or a resource's URI is text the client chose.
	maxNameBytes = 256
)

// The outcomes of an [Event].
const (
	OutcomeOK        = "ok"         // a result
	OutcomeRefused   = "refused"    // a refusal, or arguments the input schema refused: Code says which
	OutcomeToolError = "tool-error" // an isError result that is not a refusal
	OutcomeError     = "error"      // a JSON-RPC error answer: Code is its code as text
)

// TraceOptions configures a [Trace].
type TraceOptions struct {
	// Size is how many events the trace keeps; older ones are dropped.
	// If zero, [DefaultTraceSize]; at most [MaxTraceSize].
	Size int
}

// Event is one call a [Trace] saw: a tools/call, prompts/get or
// resources/read, of any client. It holds neither the call's arguments
// nor its result.
type Event struct {
	// Seq numbers the events of a trace from 1, in the order they ended.
	Seq uint64
	// Time is when the call started.
	Time time.Time
	// Method is "tools/call", "prompts/get" or "resources/read".
	Method string
	// Name is the tool, the prompt or the resource's URI (cut to 256
	// bytes).
	Name string
	// Caller is the subject of the call's principal, empty when
	// anonymous.
	Caller string
	// Client is the name the client gave itself, when the server knows
	// it; empty otherwise.
	Client string
	// Outcome is [OutcomeOK], [OutcomeRefused], [OutcomeToolError] or
	// [OutcomeError].
	Outcome string
	// Code is the refusal's code ("not-found", "invalid") or the error's
	// JSON-RPC code as text ("-32602"); empty for ok.
	Code string
	// Message is the refusal's sentence, the tool's error or the error
	// answer's message (which for an internal error is its reference),
	// at most [MaxMessageRunes] characters.
	Message string
	// Duration is how long the call took.
	Duration time.Duration
}

// Trace is a [ferry.Observer] that keeps the last calls a server
// answered (tools/call, prompts/get and resources/read, of every client
// and on every transport) as [Event]s, in a ring of fixed size: it never
// holds more than [TraceOptions.Size] events, nor any call's arguments
// or result. Set it as the server's observer (with [Join], beside any
// other) and pass it to [Options.Trace] to show it in the workbench. A
// Trace is safe for concurrent use; recording an event takes a lock for
// the time of a copy.
type Trace struct {
	mu   sync.Mutex // guards ring and seq
	ring []Event    // the events, ring[(seq-1) % len(ring)] the newest
	seq  uint64     // the newest event's Seq; 0 before the first
}

// NewTrace returns an empty trace. opts may be nil.
func NewTrace(opts *TraceOptions) *Trace {
	size := DefaultTraceSize
	if opts != nil && opts.Size > 0 {
		size = min(opts.Size, MaxTraceSize)
	}
	return &Trace{ring: make([]Event, size)}
}

// Start implements [ferry.Observer]; it does nothing.
func (t *Trace) Start(ctx context.Context, _ *ferry.RequestInfo) context.Context { return ctx }

// End implements [ferry.Observer]: it records a tools/call, prompts/get
// or resources/read, and ignores any other request.
func (t *Trace) End(ctx context.Context, info *ferry.RequestInfo, end ferry.RequestEnd) {
	switch {
	case info.Target == ferry.TargetTool, info.Target == ferry.TargetPrompt:
	case info.Method == "resources/read":
	default:
		return
	}
	e := Event{Time: time.Now().Add(-end.Duration), Method: info.Method, Name: cut(info.Name, maxNameBytes),
		Client: cut(info.Client, maxNameBytes), Duration: end.Duration, Outcome: OutcomeOK}
	if p, ok := ferry.PrincipalFromContext(ctx); ok {
		e.Caller = cut(p.Subject, maxNameBytes)
	}
	switch {
	case end.ErrorCode != 0:
		e.Outcome, e.Code, e.Message = OutcomeError, strconv.Itoa(int(end.ErrorCode)), end.ErrorMessage
	case end.Task == ferry.TaskFailed: // a task's error without a code
		e.Outcome, e.Message = OutcomeError, end.ErrorMessage
	case end.ToolError:
		e.Outcome, e.Code, e.Message = toolError(end.Result)
	case end.Task == ferry.TaskCancelled:
		e.Outcome, e.Code, e.Message = OutcomeError, "cancelled", "the task was cancelled"
	}
	e.Message = cutRunes(e.Message, MaxMessageRunes)
	t.mu.Lock()
	t.seq++
	e.Seq = t.seq
	t.ring[(e.Seq-1)%uint64(len(t.ring))] = e
	t.mu.Unlock()
}

// toolError reads an isError result: "invalid arguments:" and a
// refusal's "code: sentence" are refusals, any other text a tool error.
func toolError(result json.RawMessage) (outcome, code, message string) {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(result, &res) != nil || len(res.Content) == 0 || res.Content[0].Type != "text" {
		return OutcomeToolError, "", ""
	}
	text := res.Content[0].Text
	if rest, ok := strings.CutPrefix(text, "invalid arguments:"); ok {
		// One "- PATH: sentence" line per argument, read as one line.
		var lines []string
		for line := range strings.Lines(rest) {
			if line = strings.TrimPrefix(strings.TrimSpace(line), "- "); line != "" {
				lines = append(lines, line)
			}
		}
		return OutcomeRefused, string(ferry.RefusalInvalid), strings.Join(lines, "; ")
	}
	if head, rest, ok := strings.Cut(text, ": "); ok && isRefusalCode(head) {
		return OutcomeRefused, head, rest
	}
	return OutcomeToolError, "", text
}

// isRefusalCode reports whether s is one of the refusal codes Ferry
// names.
func isRefusalCode(s string) bool {
	switch ferry.RefusalCode(s) {
	case ferry.RefusalNotFound, ferry.RefusalConflict, ferry.RefusalForbidden, ferry.RefusalInvalid,
		ferry.RefusalUnavailable, ferry.RefusalDeclined:
		return true
	}
	return false
}

// Events returns the events after seq that the trace still holds, oldest
// first. A seq beyond the newest event (one from before the server
// restarted) is read as 0: every event held is returned.
func (t *Trace) Events(after uint64) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	if after > t.seq {
		after = 0
	}
	first := after + 1
	if n := uint64(len(t.ring)); t.seq >= n && first <= t.seq-n {
		first = t.seq - n + 1 // older ones were dropped
	}
	out := make([]Event, 0, t.seq+1-first)
	for s := first; s <= t.seq; s++ {
		out = append(out, t.ring[(s-1)%uint64(len(t.ring))])
	}
	return out
}

// Last returns the newest event's Seq, 0 before the first event.
func (t *Trace) Last() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq
}

// handler serves the trace to the callers may allows (see
// [Options.MayReadTrace]).
func (t *Trace) handler(may func(*ferry.Principal) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := ferry.PrincipalFromContext(r.Context())
		if may == nil && p == nil || may != nil && !may(p) {
			writeError(w, http.StatusForbidden, "forbidden: this caller may not read the trace")
			return
		}
		after := uint64(0)
		if s := r.URL.Query().Get("after"); s != "" {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				writeError(w, http.StatusBadRequest, "after must be the seq of an event: a whole number from 0")
				return
			}
			after = n
		}
		writeBody(w, r, "application/json", t.page(after))
	})
}

// wireEvent is an [Event] as the trace endpoint writes it.
type wireEvent struct {
	Seq        uint64  `json:"seq"`
	Time       string  `json:"time"`
	Method     string  `json:"method"`
	Name       string  `json:"name"`
	Caller     string  `json:"caller"`
	Client     string  `json:"client"`
	Outcome    string  `json:"outcome"`
	Code       string  `json:"code"`
	Message    string  `json:"message"`
	DurationMs float64 `json:"durationMs"`
}

// page is the trace endpoint's answer: the events after seq, oldest
// first, and next, the seq to ask after next time.
func (t *Trace) page(after uint64) []byte {
	events := t.Events(after)
	out := struct {
		Events []wireEvent `json:"events"`
		Next   uint64      `json:"next"`
	}{Events: make([]wireEvent, len(events)), Next: after}
	for i, e := range events {
		out.Events[i] = wireEvent{Seq: e.Seq, Time: e.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
			Method: e.Method, Name: e.Name, Caller: e.Caller, Client: e.Client, Outcome: e.Outcome,
			Code: e.Code, Message: e.Message, DurationMs: float64(e.Duration.Microseconds()) / 1000}
		out.Next = e.Seq
	}
	if len(events) == 0 && after > t.Last() {
		out.Next = t.Last()
	}
	b, _ := json.Marshal(out)
	return b
}

// cut returns s cut to at most n bytes, at a character's boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cutRunes returns s cut to at most n characters, ending with "…" when
// it was cut.
func cutRunes(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}
