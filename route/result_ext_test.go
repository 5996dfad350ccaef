package route_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
)

// respondArgs are the arguments of the respond tool.
func respondArgs(status int, typ, body string) string {
	data, _ := json.Marshal(map[string]any{"status": status, "type": typ, "body": body})
	return string(data)
}

func TestAnswersBecomeResultsAndRefusals(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), nil)
	m.serve(t)
	const problem = "application/problem+json"
	// retryDate stands for a Retry-After date 90 seconds after the call,
	// written into the arguments just before it is made.
	const retryDate = "RETRY-DATE"
	tests := []struct {
		name       string
		args       string
		want       string
		isError    bool
		structured string
	}{
		{name: "2xx JSON object: structured content and the same text",
			args: respondArgs(200, "application/json", `{"id":"A-1","total":12.5}`),
			want: `{"id":"A-1","total":12.5}`, structured: `{"id":"A-1","total":12.5}`},
		{name: "2xx +json type is JSON too",
			args: respondArgs(201, "application/vnd.orders+json; charset=utf-8", `{"id":"A-2"}`),
			want: `{"id":"A-2"}`, structured: `{"id":"A-2"}`},
		{name: "2xx JSON array: text only",
			args: respondArgs(200, "application/json", `[1,2]`), want: `[1,2]`},
		{name: "2xx text", args: respondArgs(200, "text/plain", "all good"), want: "all good"},
		{name: "204", args: respondArgs(204, "", ""), want: route.DoneText},
		{name: "no status, no body", args: `{}`, want: route.DoneText},
		{name: "404 problem: the detail",
			args: respondArgs(404, problem, `{"title":"Not Found","status":404,"detail":"No such order."}`),
			want: "not-found: No such order.", isError: true},
		{name: "410 problem without detail: the title",
			args: respondArgs(410, problem, `{"title":"The order is archived"}`),
			want: "not-found: The order is archived.", isError: true},
		{name: "409", args: respondArgs(409, problem, `{"detail":"Period 2026-11 is locked."}`),
			want: "conflict: Period 2026-11 is locked.", isError: true},
		{name: "412", args: respondArgs(412, problem, `{"detail":"The order changed since you read it."}`),
			want: "conflict: The order changed since you read it.", isError: true},
		{name: "401", args: respondArgs(401, problem, `{"detail":"Sign in first."}`),
			want: "forbidden: Sign in first.", isError: true},
		{name: "403 plain text: its first line",
			args: respondArgs(403, "text/plain; charset=utf-8", "Not your order\nmore detail"),
			want: "forbidden: Not your order.", isError: true},
		{name: "400 with an HTML body: the status text",
			args: respondArgs(400, "text/html", "<h1>bad</h1>"), want: "invalid: Bad Request.", isError: true},
		{name: "418, another 4xx: invalid",
			args: respondArgs(418, "", ""), want: "invalid: I'm a teapot.", isError: true},
		{name: "a plain JSON error body's message",
			args: respondArgs(422, "application/json", `{"message":"Quantity must be positive"}`),
			want: "invalid: Quantity must be positive.", isError: true},
		{name: "huma errors",
			args: respondArgs(422, problem, `{"title":"Unprocessable Entity","detail":"validation failed","errors":[`+
				`{"message":"expected length <= 20","location":"body.items[2].sku","value":"x"},`+
				`{"message":"expected number >= 1","location":"body.items[0].qty","value":0}]}`),
			want:    "invalid: validation failed.\n- body.items[2].sku: expected length <= 20\n- body.items[0].qty: expected number >= 1",
			isError: true},
		{name: "detail and pointer errors",
			args:    respondArgs(400, problem, `{"title":"Bad","errors":[{"detail":"must be a positive integer","pointer":"#/items/1/qty"},{"detail":"is required","pointer":"/customer"}]}`),
			want:    "invalid: Bad.\n- items[1].qty: must be a positive integer\n- customer: is required",
			isError: true},
		{name: "field and message errors, and strings",
			args:    respondArgs(400, "application/json", `{"error":"Bad input","errors":[{"field":"email","message":"is not an address"},"something else"]}`),
			want:    "invalid: Bad input.\n- email: is not an address\n- something else",
			isError: true},
		{name: "429 with Retry-After seconds",
			args: `{"status":429,"type":"application/problem+json","body":"{\"detail\":\"Slow down.\"}","retry":"30"}`,
			want: "unavailable: Slow down. Retry in 30s.", isError: true},
		{name: "503 with Retry-After as a date",
			args: `{"status":503,"body":"","retry":"` + retryDate + `"}`,
			want: "unavailable: Service Unavailable. Retry in (89|90)s.", isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, e := range eras {
				args := strings.ReplaceAll(tt.args, retryDate, time.Now().Add(90*time.Second).UTC().Format(http.TimeFormat))
				got := m.call(t, e, "respond", args)
				if got.RPCError != "" {
					t.Fatalf("%s: %s", e, got.RPCError)
				}
				if !regexp.MustCompile("^"+regexpQuoteExceptGroups(tt.want)+"$").MatchString(got.Text) || got.IsError != tt.isError {
					t.Errorf("%s: got %q (isError %t), want %q (isError %t)", e, got.Text, got.IsError, tt.want, tt.isError)
				}
				if string(got.Structured) != tt.structured {
					t.Errorf("%s: structuredContent %s, want %s", e, got.Structured, tt.structured)
				}
			}
		})
	}
}

// regexpQuoteExceptGroups quotes s for a regular expression, except for
// groups of alternatives like (89|90).
func regexpQuoteExceptGroups(s string) string {
	re := regexp.MustCompile(`\(\d+(\|\d+)*\)`)
	var b strings.Builder
	last := 0
	for _, loc := range re.FindAllStringIndex(s, -1) {
		b.WriteString(regexp.QuoteMeta(s[last:loc[0]]))
		b.WriteString(s[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(s[last:]))
	return b.String()
}

func TestLongAnswersAreCutAtTheLimit(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), &route.Options{MaxResponseBytes: 2500})
	m.serve(t)
	for _, e := range eras {
		got := m.call(t, e, "respond", `{"size":100000,"type":"application/json"}`)
		body, note, ok := strings.Cut(got.Text, "\n[cut:")
		if !ok || body != strings.Repeat("x", 2500) || got.IsError || got.Structured != nil {
			t.Errorf("%s: got %d bytes of text (isError %t, structured %s), want 2500 x and a note", e, len(got.Text), got.IsError, got.Structured)
		}
		if want := " the answer is longer than 2500 bytes, which is all this tool reads]"; note != want {
			t.Errorf("%s: note %q, want %q", e, note, want)
		}
	}
}

// refPattern finds the reference of a masked failure.
var refPattern = regexp.MustCompile(`^the tool failed unexpectedly \(ref ([0-9a-f]+)\)$`)

// maskedError checks that r is a masked failure and returns the error its
// log record holds.
func maskedError(t *testing.T, m *mcpServer, r result) string {
	t.Helper()
	match := refPattern.FindStringSubmatch(r.Text)
	if match == nil || !r.IsError {
		t.Fatalf("got %+v, want a masked failure", r)
	}
	for _, rec := range m.logs.Records(t, "tool failed unexpectedly") {
		if rec["ref"] == match[1] {
			s, _ := rec["err"].(string)
			return s
		}
	}
	t.Fatalf("no log record with ref %s in\n%s", match[1], m.logs)
	return ""
}

func TestUnexpectedAnswersAreMaskedAndLoggedWithTheRequestID(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), nil)
	m.serve(t)
	for _, e := range eras {
		// The route answers its X-Request-Id as the body.
		got := m.call(t, e, "respond", `{"status":500,"body":"$id"}`)
		logged := maskedError(t, m, got)
		id := regexp.MustCompile(`request id ([0-9a-f]{16})\): ([0-9a-f]{16})$`).FindStringSubmatch(logged)
		if id == nil || id[1] != id[2] || !strings.HasPrefix(logged, "route: GET /respond?status=500&body=%24id answered 500 Internal Server Error") {
			t.Errorf("%s: logged %q, want the status, the request id and the body holding the same id", e, logged)
		}
		got = m.call(t, e, "respond", `{"status":302,"location":"/elsewhere"}`)
		if logged := maskedError(t, m, got); !strings.Contains(logged, `answered 302 Found to "/elsewhere"`) {
			t.Errorf("%s: a redirect logged %q", e, logged)
		}
	}
}

func TestAPanickingRouteIsMaskedAndTheServerKeepsServing(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), nil)
	m.serve(t)
	for _, e := range eras {
		logged := maskedError(t, m, m.call(t, e, "boom", `{}`))
		if !regexp.MustCompile(`^route: the handler of GET /boom panicked \(request id [0-9a-f]{16}\): the route broke\n`).MatchString(logged) ||
			!strings.Contains(logged, "goroutine") {
			t.Errorf("%s: logged %q, want the panic, its request id and the stack", e, logged)
		}
		logged = maskedError(t, m, m.call(t, e, "abort", `{}`))
		if !regexp.MustCompile(`^route: the handler of GET /abort aborted the response \(request id [0-9a-f]{16}\)$`).MatchString(logged) {
			t.Errorf("%s: logged %q", e, logged)
		}
		if got := m.call(t, e, "respond", respondArgs(200, "text/plain", "still here")); got.Text != "still here" {
			t.Errorf("%s: after the panics: %+v", e, got)
		}
	}
}

func TestResponseControllerCallsSucceed(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), nil)
	m.serve(t)
	want := "part one; Flush: ok, SetReadDeadline: ok, SetWriteDeadline: ok, EnableFullDuplex: ok, Hijack fails: true"
	for _, e := range eras {
		if got := m.call(t, e, "flush", `{}`); got.Text != want {
			t.Errorf("%s: got %q, want %q", e, got.Text, want)
		}
	}
}

func TestImagesAndSoundsAreMediaBlocks(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), &route.Options{MaxResponseBytes: 3000})
	m.serve(t)
	call := func(args string) string {
		return string(m.call(t, modern, "respond", args).Raw)
	}
	if got := call(`{"type":"image/png","body":"PNG!"}`); !strings.Contains(got, `"content":[{"type":"image","data":"UE5HIQ==","mimeType":"image/png"}]`) {
		t.Errorf("an image: %s", got)
	}
	if got := call(`{"type":"audio/wav","body":"RIFF"}`); !strings.Contains(got, `"content":[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}]`) {
		t.Errorf("a sound: %s", got)
	}
	got := m.call(t, modern, "respond", `{"type":"image/png","size":5000}`)
	if want := "The image/png answer is larger than 3000 bytes, which is all this tool reads."; got.Text != want || !got.IsError {
		t.Errorf("a cut image: %+v, want %q", got, want)
	}
}

func TestAHeadAnswerHasNoBody(t *testing.T) {
	m := newMCPServer(t)
	b := testBinding(m, service(nil), nil)
	route.AddTool[orderIn](b, ferry.Tool{Name: "has_order", Description: "Says whether an order exists."}, "HEAD /orders/{id}")
	m.serve(t)
	for _, e := range eras {
		if got := m.call(t, e, "has_order", `{"id":"A-1"}`); got.Text != route.DoneText || got.IsError {
			t.Errorf("%s: %+v", e, got)
		}
	}
}

// An answer that is a JSON array over the tool's result budget is cut at
// a whole item: the model reads valid JSON, the first items in order, and
// a notice saying how many were kept.
func TestAnArrayOverTheResultBudgetIsCutAtAnItem(t *testing.T) {
	m := newMCPServer(t)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /all", func(w http.ResponseWriter, _ *http.Request) {
		items := make([]map[string]any, 5000)
		for i := range items {
			items[i] = map[string]any{"id": i + 1, "name": "item " + strconv.Itoa(i+1)}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(items)
	})
	b := route.New(m.srv, mux, nil)
	route.AddTool[noIn](b, ferry.Tool{Name: "list_all", Description: "Lists every item.", ReadOnly: true, MaxResultBytes: 20_000}, "GET /all")
	m.serve(t)
	for _, e := range eras {
		got := m.call(t, e, "list_all", `{}`)
		body, notice, ok := strings.Cut(got.Text, "\n\n")
		var items []struct{ ID int }
		if !ok || got.IsError || json.Unmarshal([]byte(body), &items) != nil || len(items) < 100 || len(items) >= 5000 {
			t.Fatalf("%s: %d items, isError %v: %.200s", e, len(items), got.IsError, got.Text)
		}
		for i, it := range items {
			if it.ID != i+1 {
				t.Fatalf("%s: item %d has id %d", e, i, it.ID)
			}
		}
		if want := "[the list was cut at " + strconv.Itoa(len(items)) + " of 5,000 items to fit the result budget of 20,000 bytes: ask for the next page"; !strings.HasPrefix(notice, want) {
			t.Errorf("%s: notice %q, want %q...", e, notice, want)
		}
		if len(got.Raw) > 20_000+200 {
			t.Errorf("%s: %d bytes", e, len(got.Raw))
		}
	}
}
