package ferry_test

import (
	"bufio"
	"bytes"
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
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// The -update flag rewrites the server and response sections of
// testdata/conformance/*.txtar. ferrytest registers a flag of that name
// too (for GoldenTools), and a test binary may hold only one, so it is
// defined here unless ferrytest already did.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the server and response sections of testdata/conformance/*.txtar")
	}
}

// updating reports whether the test runs with -update.
func updating() bool { return flag.Lookup("update").Value.String() == "true" }

// TestConformance replays the golden transcripts in testdata/conformance.
//
// Each file is a txtar archive whose comment says what it guards. An optional
// "options" section configures the server ("key: value" lines: stateful,
// pageSize, versions, allowedOrigins, streamResponses, hidden (a comma
// list of tools that ServerOptions.Visible hides from every caller), and
// "fixtures: modern" for the tools of [addModernFixtures]). Then either:
//
// stdio: a "client" section, one JSON-RPC message per line, fed through
// [ferry.IOTransport] to [ferry.Server.Run], and a "server" section holding
// every line the server wrote. The driver runs in lockstep so that the
// server's lines come in a deterministic order and are compared in order:
// before sending a line it waits until every request it sent has been
// answered, unless the server is waiting on a request of its own (such as
// elicitation/create), in which case the next client line is expected to be
// the reply. After a batch it waits for the batch's answer. A
// subscriptions/listen request stays open, so its
// notifications/subscriptions/acknowledged (matched by the
// io.modelcontextprotocol/subscriptionId in its _meta) counts as its
// answer; a transcript ends every listen it opens with
// notifications/cancelled, and any response the server still writes for it
// lands in the server section, where the golden file says none belongs.
// The driver does not wait for the server to register or drop a listen: an
// update sent right after the acknowledgement must arrive, and one sent
// right after the cancellation must not.
//
// HTTP: numbered "request N" / "response N" sections, sent one after another
// to an [httptest.Server] running [ferry.NewHTTPHandler]. A request section
// is a first line holding the HTTP method, header lines, a blank line and
// the body. A response section is the status line, the headers Allow,
// Content-Type and Mcp-Session-Id when present, a blank line and the body.
//
// Values that change from run to run are recorded as placeholders: an
// Mcp-Session-Id response header as $SESSION, a requestState as
// $REQUEST_STATE and an SSE event id as $EVENT_ID. Later requests may use
// $SESSION and $REQUEST_STATE, which stand for the values last captured. On
// stdio, the id of a request the server sends (random, so that no other
// client can answer it) is recorded as "$ASK", and a client line's "$ASK"
// stands for the oldest such id not yet answered. Bodies and server lines are compared
// as JSON (SSE bodies event by event), so member order and spacing do not
// matter.
//
// go test -run Conformance -update rewrites the server and response
// sections from what the server does now.
func TestConformance(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "conformance", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata/conformance")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runTranscript(t, file)
		})
	}
}

func runTranscript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := parseArchive(data)
	if len(bytes.TrimSpace(ar.comment)) == 0 {
		t.Errorf("%s has no header comment saying what it guards", file)
	}
	opts := map[string]string{}
	if sec := ar.get("options"); sec != nil {
		for line := range strings.Lines(string(sec)) {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				t.Fatalf("options: bad line %q", line)
			}
			opts[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	srv := newConformanceServer(t, opts)
	changed := false
	if client := ar.get("client"); client != nil {
		got := runStdioTranscript(t, srv, client)
		want := ar.get("server")
		if !updating() {
			compareLines(t, "server", want, got)
		} else if !bytes.Equal(want, got) {
			ar.set("server", got)
			changed = true
		}
	} else {
		changed = runHTTPTranscript(t, srv, opts, ar)
	}
	if updating() && changed {
		if err := os.WriteFile(file, ar.format(), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// newConformanceServer builds the server every transcript talks to.
func newConformanceServer(t testing.TB, opts map[string]string) *ferry.Server {
	so := &ferry.ServerOptions{
		Title:        "Ferry conformance server",
		Instructions: "Use echo to repeat text.",
		SigningKeys:  [][]byte{[]byte("conformance-signing-key-0123456789")},
		CompletionHandler: func(ctx context.Context, req *ferry.CompleteRequest) (*ferry.CompleteResult, error) {
			var out []string
			for _, v := range []string{"alice", "bob", "carol", "carla"} {
				if strings.HasPrefix(v, req.Value) {
					out = append(out, v)
				}
			}
			return &ferry.CompleteResult{Values: out, Total: len(out)}, nil
		},
	}
	if v := opts["pageSize"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("options: pageSize: %v", err)
		}
		so.PageSize = n
	}
	if v := opts["hidden"]; v != "" {
		hidden := strings.Split(v, ",")
		so.Visible = func(_ context.Context, t ferry.ToolInfo) bool { return !slices.Contains(hidden, t.Name) }
	}
	if v := opts["versions"]; v != "" {
		for _, s := range strings.Split(v, ",") {
			so.ProtocolVersions = append(so.ProtocolVersions, strings.TrimSpace(s))
		}
	}
	// The transcripts say what the client sees; the server's own log (which
	// defaults to slog.Default) would only clutter the test output.
	so.Logger = slog.New(slog.DiscardHandler)
	srv := ferry.NewServer("ferry-conformance", "1.0.0", so)

	srv.AddTool(ferry.Tool{
		Name:           "echo",
		Description:    "Repeats a message.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`),
	}, func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		var in struct {
			Message string `json:"message"`
		}
		if err := json.Unmarshal(req.Arguments, &in); err != nil || in.Message == "" {
			return ferry.NewErrorResult("echo needs a message"), nil
		}
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(in.Message)}}, nil
	})
	srv.AddTool(ferry.Tool{
		Name:           "confirm",
		Description:    "Asks the user to confirm, through elicitation.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"}}}`),
	}, func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		res, err := ferry.Elicit(ctx, &ferry.ElicitParams{
			Message:         "Proceed?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`),
		})
		if errors.Is(err, ferry.ErrInputRequired) {
			return nil, err
		}
		if err != nil {
			return ferry.NewErrorResult("cannot ask the user: " + err.Error()), nil
		}
		ok, _ := res.Content["ok"].(bool)
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(fmt.Sprintf("action=%s ok=%t", res.Action, ok))}}, nil
	})
	srv.AddTool(ferry.Tool{
		Name:        "steps",
		Description: "Works in two steps, reporting progress and logging.",
	}, func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		_ = ferry.NotifyProgress(ctx, ferry.Progress{Progress: 1, Total: 2, Message: "step 1"})
		_ = ferry.NotifyLog(ctx, ferry.LevelInfo, "steps", "halfway")
		_ = ferry.NotifyProgress(ctx, ferry.Progress{Progress: 2, Total: 2, Message: "step 2"})
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("done")}}, nil
	})

	srv.AddPrompt(ferry.Prompt{
		Name:        "greet",
		Description: "Greets someone.",
		Arguments:   []ferry.PromptArgument{{Name: "name", Required: true}, {Name: "style"}},
	}, func(ctx context.Context, req *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
		return &ferry.PromptResult{Description: "A greeting", Messages: []ferry.PromptMessage{
			{Role: ferry.RoleUser, Content: ferry.Text("Say hello to " + req.Arguments["name"])},
		}}, nil
	})

	srv.AddResource(ferry.Resource{URI: "file:///readme.txt", Name: "readme", MIMEType: "text/plain"},
		func(ctx context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: "Read me."}}, nil
		})
	// The notes template converts its variable: an id that is not an
	// integer names no note.
	ferry.AddResourceTemplate(srv, ferry.ResourceTemplate{URITemplate: "file:///notes/{id}", Name: "note", MIMEType: "text/plain"},
		func(ctx context.Context, uri string, v struct {
			ID int `json:"id" enum:"7,42,420"`
		}) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: fmt.Sprintf("note %d", v.ID)}}, nil
		})

	// Prompts, resources and subscriptions with the typed API, for the
	// prompts_*, resources_*, completion_* and subscriptions_* transcripts.
	type tripArgs struct {
		City   string `json:"city" doc:"The city to visit."`
		Season string `json:"season,omitempty" doc:"When to go." enum:"Spring,Summer,Autumn,Winter"`
	}
	ferry.AddPromptTemplate[tripArgs](srv, ferry.Prompt{
		Name:        "plan_trip",
		Title:       "Plan a trip",
		Description: "Plans a trip to a city.",
		Template:    "Plan a {{season}} trip to {{ city }}.",
		PreferWhen:  "use echo to repeat the plan back.",
	})
	type reviewArgs struct {
		Code  string  `json:"code" doc:"The code to review."`
		Focus *string `json:"focus" doc:"What to look at first."`
	}
	ferry.AddPrompt(srv, ferry.Prompt{Name: "review", Description: "Reviews code against a diagram and the style guide."},
		func(ctx context.Context, a reviewArgs) ([]ferry.PromptMessage, error) {
			focus := "everything"
			if a.Focus != nil {
				focus = *a.Focus
			}
			return []ferry.PromptMessage{
				ferry.UserMessage(ferry.Text("Review this code, looking at " + focus + " first:\n" + a.Code)),
				ferry.UserMessage(ferry.Image([]byte("\x89PNG\r\n\x1a\n"), "image/png")),
				ferry.UserMessage(&ferry.EmbeddedResource{
					Resource:    ferry.ResourceContents{URI: "file:///style.md", MIMEType: "text/markdown", Text: "# Style\nShort names."},
					Annotations: &ferry.Annotations{Audience: []ferry.Role{ferry.RoleAssistant}},
				}),
				ferry.AssistantMessage(ferry.Text("I will start with " + focus + ".")),
			}, nil
		})
	priority := 0.5
	srv.AddResource(ferry.Resource{
		URI:         "file:///logo.png",
		Name:        "logo",
		Title:       "Ferry logo",
		Description: "The Ferry logo, a binary resource.",
		MIMEType:    "image/png",
		Size:        8,
		Annotations: &ferry.Annotations{
			Audience:     []ferry.Role{ferry.RoleUser, ferry.RoleAssistant},
			Priority:     &priority,
			LastModified: "2026-07-28T09:00:00Z",
		},
	}, func(ctx context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, MIMEType: "image/png", Blob: []byte("\x89PNG\r\n\x1a\n")}}, nil
	})
	srv.AddSchemaResources("ferry")
	if opts["fixtures"] == "modern" {
		addModernFixtures(srv)
	}
	srv.AddTool(ferry.Tool{
		Name:           "touch",
		Description:    "Tells subscribers that a resource changed.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}`),
	}, func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		var in struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(req.Arguments, &in); err != nil || in.URI == "" {
			return ferry.NewErrorResult("touch needs a uri"), nil
		}
		srv.NotifyResourceUpdated(in.URI)
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("touched " + in.URI)}}, nil
	})
	return srv
}

// Volatile values and their placeholders.
var (
	requestStateRE = regexp.MustCompile(`"requestState":"[^"]*"`)
	maskedRefRE    = regexp.MustCompile(`\(ref [0-9a-f]{12}\)`)
	eventIDRE      = regexp.MustCompile(`(?m)^id: \S+$`)
	askIDRE        = regexp.MustCompile(`"id":"ferry-[A-Za-z0-9_-]{22}"`)
)

// normalize replaces the volatile values of a server message with
// placeholders.
func normalize(b []byte) []byte {
	b = requestStateRE.ReplaceAll(b, []byte(`"requestState":"$$REQUEST_STATE"`))
	b = eventIDRE.ReplaceAll(b, []byte(`id: $$EVENT_ID`))
	b = askIDRE.ReplaceAll(b, []byte(`"id":"$$ASK"`))
	return maskedRefRE.ReplaceAll(b, []byte(`(ref $$REF)`))
}

// runStdioTranscript feeds client lines to srv.Run in lockstep and returns
// the normalised server lines, one per line.
func runStdioTranscript(t *testing.T, srv *ferry.Server, client []byte) []byte {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cr, cw := io.Pipe()
	or, ow := io.Pipe()
	runErr := make(chan error, 1)
	go func() {
		err := srv.Run(ctx, &ferry.IOTransport{Reader: cr, Writer: ow})
		ow.Close()
		runErr <- err
	}()
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(or)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- bytes.Clone(sc.Bytes())
		}
	}()

	var out [][]byte
	outstanding := map[string]bool{} // ids of our requests not yet answered
	listens := map[string]bool{}     // ids of acknowledged listens not cancelled
	asks := 0                        // server requests not yet answered
	var askIDs []string              // their ids, oldest first
	receive := func(line []byte) {
		out = append(out, line)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil {
			return
		}
		if m.Method != nil && *m.Method == "notifications/subscriptions/acknowledged" {
			// A subscriptions/listen stays open: its acknowledgement
			// stands in for its answer.
			if sid, ok := m.Params.Meta["io.modelcontextprotocol/subscriptionId"]; ok {
				delete(outstanding, compactJSON(sid))
				listens[compactJSON(sid)] = true
			}
		}
		if len(m.ID) == 0 {
			return
		}
		if m.Method != nil {
			asks++
			askIDs = append(askIDs, compactJSON(m.ID))
		} else {
			delete(outstanding, compactJSON(m.ID))
		}
	}
	wait := func(what string, done func() bool) {
		timeout := time.After(5 * time.Second)
		for !done() {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("server closed its output while waiting for %s", what)
				}
				receive(line)
			case <-timeout:
				t.Fatalf("timed out waiting for %s; server lines so far:\n%s", what, bytes.Join(out, []byte("\n")))
			}
		}
	}
	for line := range bytes.Lines(client) {
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		wait("answers to earlier requests", func() bool { return len(outstanding) == 0 || asks > 0 })
		if bytes.Contains(line, []byte(`"$ASK"`)) && len(askIDs) > 0 {
			line = bytes.Replace(line, []byte(`"$ASK"`), []byte(askIDs[0]), 1)
			askIDs = askIDs[1:]
		}
		kind, id, expectsReply := classifyClientLine(line)
		if kind == "other" {
			if cancelled, ok := cancelledID(line); ok {
				delete(listens, cancelled)
			}
		}
		if _, err := cw.Write(append(bytes.Clone(line), '\n')); err != nil {
			t.Fatal(err)
		}
		switch kind {
		case "request":
			outstanding[id] = true
		case "response":
			asks--
		case "batch":
			if expectsReply {
				n := len(out)
				wait("the answer to a batch", func() bool { return len(out) > n })
			}
		}
	}
	wait("answers to every request", func() bool { return len(outstanding) == 0 })
	cw.Close()
	for line := range lines {
		receive(line)
	}
	if err := <-runErr; err != nil {
		t.Errorf("Run returned %v", err)
	}
	var b bytes.Buffer
	for _, l := range out {
		b.Write(normalize(l))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// cancelledID returns the requestId of a notifications/cancelled line.
func cancelledID(line []byte) (string, bool) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "notifications/cancelled" || len(m.Params.RequestID) == 0 {
		return "", false
	}
	return compactJSON(m.Params.RequestID), true
}

// classifyClientLine tells what a client line is, as far as the driver
// needs: a request (with its id), a response, a batch (and whether it holds
// anything but notifications), or other (notifications and garbage, which
// the server answers, if at all, before it reads the next line).
func classifyClientLine(line []byte) (kind, id string, expectsReply bool) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var items []map[string]json.RawMessage
		if json.Unmarshal(trimmed, &items) != nil || len(items) == 0 {
			return "other", "", false // answered at once with an error
		}
		for _, it := range items {
			if _, ok := it["id"]; ok {
				return "batch", "", true
			}
			if _, ok := it["method"]; !ok {
				return "batch", "", true
			}
		}
		return "batch", "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return "other", "", false
	}
	rawID, hasID := m["id"]
	_, hasMethod := m["method"]
	switch {
	case hasMethod && hasID && (rawID[0] == '"' || rawID[0] == '-' || rawID[0] >= '0' && rawID[0] <= '9'):
		return "request", compactJSON(rawID), false
	case !hasMethod && hasID:
		return "response", "", false
	}
	return "other", "", false
}

func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// canonicalJSON decodes and re-encodes a JSON value, so that member order
// and spacing do not matter. Text that is not JSON is returned as is.
func canonicalJSON(b []byte) string {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return "NOT JSON: " + string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// compareLines compares two sets of newline-separated JSON messages in order.
func compareLines(t *testing.T, section string, want, got []byte) {
	t.Helper()
	canon := func(b []byte) []string {
		var out []string
		for l := range bytes.Lines(b) {
			if l = bytes.TrimSpace(l); len(l) > 0 {
				out = append(out, canonicalJSON(l))
			}
		}
		return out
	}
	w, g := canon(want), canon(got)
	if slices.Equal(w, g) {
		return
	}
	for i := 0; i < max(len(w), len(g)); i++ {
		wl, gl := "(none)", "(none)"
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			t.Errorf("%s line %d:\nwant %s\n got %s", section, i+1, wl, gl)
		}
	}
	t.Errorf("-- %s -- differs (go test -run Conformance -update rewrites it); got:\n%s", section, got)
}

// responseHeaders are the response headers a transcript records.
var responseHeaders = []string{"Allow", "Content-Type", "Mcp-Session-Id"}

// runHTTPTranscript sends the archive's requests and compares (or, with
// -update, rewrites) its responses. It reports whether it changed ar.
func runHTTPTranscript(t *testing.T, srv *ferry.Server, opts map[string]string, ar *archive) bool {
	ho := &ferry.HTTPOptions{
		Stateful:        opts["stateful"] == "true",
		StreamResponses: opts["streamResponses"] == "true",
	}
	if v := opts["allowedOrigins"]; v != "" {
		ho.AllowedOrigins = strings.Split(v, ",")
	}
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, ho))
	defer ts.Close()

	vars := map[string]string{}
	subst := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "$"+k, v)
		}
		return s
	}
	changed := false
	n := 0
	for i := 1; ; i++ {
		reqSec := ar.get(fmt.Sprintf("request %d", i))
		if reqSec == nil {
			break
		}
		n++
		req := parseHTTPRequest(t, ts.URL, subst(string(reqSec)))
		req = req.WithContext(t.Context())
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("request %d: reading the body: %v", i, err)
		}
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			vars["SESSION"] = id
		}
		if m := requestStateRE.FindAllSubmatch(body, -1); len(m) > 0 {
			last := m[len(m)-1][0]
			var v struct {
				S string `json:"requestState"`
			}
			if json.Unmarshal(append(append([]byte("{"), last...), '}'), &v) == nil {
				vars["REQUEST_STATE"] = v.S
			}
		}
		got := renderHTTPResponse(resp, normalize(body))
		name := fmt.Sprintf("response %d", i)
		want := ar.get(name)
		if updating() {
			if !bytes.Equal(want, got) {
				ar.set(name, got)
				changed = true
			}
			continue
		}
		if want == nil {
			t.Errorf("missing -- %s --; got:\n%s", name, got)
			continue
		}
		if !sameHTTPResponse(want, got) {
			t.Errorf("-- %s -- differs (go test -run Conformance -update rewrites it)\nrequest:\n%s\nwant:\n%s\ngot:\n%s", name, reqSec, want, got)
		}
	}
	if n == 0 {
		t.Fatal("transcript has neither a client section nor request sections")
	}
	return changed
}

// parseHTTPRequest reads a request section: method line, headers, blank
// line, body. A Host header sets the request's Host.
func parseHTTPRequest(t *testing.T, url, sec string) *http.Request {
	head, body, _ := strings.Cut(sec, "\n\n")
	lines := strings.Split(strings.TrimRight(head, "\n"), "\n")
	method := strings.TrimSpace(lines[0])
	req, err := http.NewRequest(method, url, strings.NewReader(strings.TrimRight(body, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("bad header line %q", l)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Add(k, v)
	}
	return req
}

func renderHTTPResponse(resp *http.Response, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d %s\n", resp.StatusCode, http.StatusText(resp.StatusCode))
	for _, h := range responseHeaders {
		v := resp.Header.Get(h)
		if v == "" {
			continue
		}
		if h == "Mcp-Session-Id" {
			v = "$SESSION"
		}
		fmt.Fprintf(&b, "%s: %s\n", h, v)
	}
	b.WriteByte('\n')
	if len(body) > 0 {
		b.Write(bytes.TrimRight(body, "\n"))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// sameHTTPResponse compares two rendered responses: the head exactly, the
// body as JSON (an SSE body line by line, data lines as JSON).
func sameHTTPResponse(want, got []byte) bool {
	split := func(b []byte) (string, []string) {
		head, body, _ := strings.Cut(string(b), "\n\n")
		var lines []string
		if strings.Contains(head, "text/event-stream") {
			for l := range strings.Lines(body) {
				l = strings.TrimRight(l, "\r\n")
				if data, ok := strings.CutPrefix(l, "data: "); ok {
					l = "data: " + canonicalJSON([]byte(data))
				}
				lines = append(lines, l)
			}
		} else if strings.TrimSpace(body) != "" {
			lines = append(lines, canonicalJSON([]byte(body)))
		}
		// Trailing blank lines do not matter.
		for len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		return strings.TrimSpace(head), lines
	}
	wh, wb := split(want)
	gh, gb := split(got)
	return wh == gh && reflect.DeepEqual(wb, gb)
}

// archive is a txtar archive: a comment and named sections. It is parsed
// here rather than with golang.org/x/tools/txtar to keep the module free of
// dependencies.
type archive struct {
	comment []byte
	files   []archiveFile
}

type archiveFile struct {
	name string
	data []byte
}

func (a *archive) get(name string) []byte {
	for _, f := range a.files {
		if f.name == name {
			return f.data
		}
	}
	return nil
}

// set replaces a section, or adds it after the last section when it is new.
func (a *archive) set(name string, data []byte) {
	for i := range a.files {
		if a.files[i].name == name {
			a.files[i].data = data
			return
		}
	}
	a.files = append(a.files, archiveFile{name, data})
}

// parseArchive parses the txtar format: lines "-- name --" start sections.
func parseArchive(data []byte) *archive {
	a := new(archive)
	for line := range bytes.Lines(data) {
		if name, ok := markerName(line); ok {
			a.files = append(a.files, archiveFile{name: name})
			continue
		}
		if n := len(a.files); n > 0 {
			a.files[n-1].data = append(a.files[n-1].data, line...)
		} else {
			a.comment = append(a.comment, line...)
		}
	}
	return a
}

func markerName(line []byte) (string, bool) {
	l := bytes.TrimRight(line, "\r\n")
	if !bytes.HasPrefix(l, []byte("-- ")) || !bytes.HasSuffix(l, []byte(" --")) || len(l) < 7 {
		return "", false
	}
	return strings.TrimSpace(string(l[3 : len(l)-3])), true
}

func (a *archive) format() []byte {
	var b bytes.Buffer
	b.Write(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.Write(f.data)
		if len(f.data) > 0 && f.data[len(f.data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// addModernFixtures adds the tools of the transcripts that guard the
// 2026-07-28 details: a question under a key the handler chose, and an
// argument mirrored in an Mcp-Param header.
func addModernFixtures(srv *ferry.Server) {
	srv.AddTool(ferry.Tool{
		Name:        "greet_user",
		Description: "Asks the user's name under the key user_name, then greets.",
	}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		res, err := ferry.Elicit(ferry.WithInputKey(ctx, "user_name"), &ferry.ElicitParams{
			Message:         "What is your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		})
		if err != nil {
			return nil, err
		}
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(fmt.Sprintf("Hello, %v!", res.Content["name"]))}}, nil
	})
	srv.AddTool(ferry.Tool{
		Name:        "route",
		Description: "Runs in a region and with a priority that clients mirror in headers.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"region":{"type":"string","x-mcp-header":"Region"},` +
			`"priority":{"type":"integer","x-mcp-header":"Priority"}},"required":["region"]}`),
	}, func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("routed " + string(req.Arguments))}}, nil
	})
}
