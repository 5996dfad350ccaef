package workbenchtest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/workbench"
)

// markup is what a hostile server puts in its tool's title, description,
// schema, result and refusal: if the page ever parsed it as HTML, the
// script or the image's error handler would set window.__x.
const markup = `<script>window.__x=1</script><img src=x onerror="window.__x=2">`

// startMarkupServer serves a small ferry server whose tools hold markup
// everywhere a server writes text, with its workbench at /ui/ and a trace
// anyone may read (the server has no authentication).
func startMarkupServer(t *testing.T) *demo {
	t.Helper()
	trace := workbench.NewTrace(nil)
	srv := ferry.NewServer("markup", "1.0.0", &ferry.ServerOptions{Observer: trace, Logger: slog.New(slog.DiscardHandler)})
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
		"note": map[string]any{"type": "string", "description": markup, "default": markup},
	}})
	srv.AddTool(ferry.Tool{Name: "echo_markup", Title: "Echo " + markup, Description: "Returns " + markup, ReadOnly: true, RawInputSchema: schema},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(markup)},
				StructuredContent: map[string]any{"html": markup, "items": []any{map[string]any{"html": markup}}}}, nil
		})
	srv.AddTool(ferry.Tool{Name: "refuse_markup", Description: "Refuses with " + markup, RawInputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return nil, ferry.Invalid(markup)
		})
	h := ferry.NewHTTPHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	workbench.New(h, &workbench.Options{Title: "markup " + markup, Endpoint: "/mcp", Trace: trace,
		MayReadTrace: func(*ferry.Principal) bool { return true }}).Mount(mux, "/ui")
	rec := &recorder{}
	hs := httptest.NewServer(rec.wrap(mux))
	t.Cleanup(hs.Close)
	return &demo{url: hs.URL, rec: rec}
}

// A server's text is shown as text: a tool whose title, description,
// schema, result and refusal hold a script and an image with an error
// handler shows their characters, and neither runs nor gets into the
// document; the page's Content-Security-Policy is sent and blocks an
// inline script, in Chromium.
func TestWorkbenchShowsServerMarkupAsText(t *testing.T) {
	s := startMarkupServer(t)
	resp, err := http.Get(s.url + "/ui/")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
		"base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("the workbench's Content-Security-Policy %q lacks %q", csp, d)
		}
	}

	b := browse(t)
	connectPage(b, s.url+"/ui/", "unused-credential-0123")
	openTool(b, "echo_markup")
	var detail string
	b.wait("the tool's description shows", `(document.querySelector("#detail .description") || {textContent: ""}).textContent`, &detail)
	if !strings.Contains(detail, markup) {
		t.Errorf("the description shows %q, want the characters of %q", detail, markup)
	}
	b.run(chromedp.Click("#send", chromedp.ByQuery))
	var result string
	b.wait("the result shows", `document.getElementById("result").textContent.includes("window.__x") && document.getElementById("result").textContent`, &result)
	if !strings.Contains(result, markup) {
		t.Errorf("the result shows %q, want the characters of %q", result, markup)
	}
	b.shotAt("11-markup-as-text", "#detail")

	openTool(b, "refuse_markup")
	b.run(chromedp.Click("#send", chromedp.ByQuery))
	var refusal string
	b.wait("the refusal shows", `document.getElementById("call-error").textContent.includes("window.__x") && document.getElementById("call-error").textContent`, &refusal)
	if !strings.Contains(refusal, markup) {
		t.Errorf("the refusal shows %q, want the characters of %q", refusal, markup)
	}
	var traced string
	b.wait("the trace shows the refusal", `(document.querySelector('#trace tbody tr[data-name="refuse_markup"]') || {}).textContent`, &traced)
	if !strings.Contains(traced, markup) {
		t.Errorf("the trace's row shows %q, want the characters of %q", traced, markup)
	}

	// Nothing ran, and no element came of the markup: the watch script
	// (browse) saw every img and script that entered the document.
	var seen struct {
		X       any      `json:"x"`
		Added   []string `json:"added"`
		Inline  int      `json:"inline"`
		Handler int      `json:"handler"`
	}
	b.eval(`({x: window.__x === undefined ? null : window.__x, added: window.__added,
	  inline: document.querySelectorAll("script:not([src])").length, handler: document.querySelectorAll("[onerror]").length})`, &seen)
	if seen.X != nil {
		t.Errorf("window.__x = %v: the page ran the server's markup", seen.X)
	}
	for _, el := range seen.Added {
		if strings.HasPrefix(el, "<img") || !strings.Contains(el, "src=") {
			t.Errorf("an element entered the document: %s", el)
		}
	}
	if seen.Inline != 0 || seen.Handler != 0 {
		t.Errorf("the document holds %d inline scripts and %d onerror handlers, want none", seen.Inline, seen.Handler)
	}

	// The policy blocks an inline script and an inline handler: were
	// markup ever to reach the document, it would not run.
	var blocked struct {
		Ran        bool
		Violations []struct{ Directive string }
	}
	b.eval(`(() => {
	  const s = document.createElement("script");
	  s.textContent = "window.__inline = 1";
	  document.body.append(s);
	  const d = document.createElement("div");
	  d.setAttribute("onclick", "window.__inline = 2");
	  document.body.append(d);
	  d.click();
	  return true;
	})()`, nil)
	b.wait("the policy reports the blocked inline script and handler", `window.__violations.length >= 2 && {Ran: window.__inline !== undefined, Violations: window.__violations}`, &blocked)
	if blocked.Ran {
		t.Error("an inline script ran despite the Content-Security-Policy")
	}
	directives := map[string]bool{}
	for _, v := range blocked.Violations {
		directives[v.Directive] = true
	}
	if !directives["script-src-elem"] || !directives["script-src-attr"] {
		t.Errorf("the policy's violations are %+v, want script-src-elem and script-src-attr", blocked.Violations)
	}
}

// The workbench refuses what /mcp refuses, in Chromium: a page under a
// name that resolves to the server (DNS rebinding) gets the same 403 for
// the workbench as for /mcp, and another origin's script that fetches
// from the workbench or posts to /mcp is refused alike and reads nothing.
func TestWorkbenchRefusesForeignHostAndOrigin(t *testing.T) {
	d := startDemo(t)
	const rebound = "rebind.example"
	b := browse(t, rebound)
	// Every request carries the key: the Host and Origin rules refuse
	// even a caller that holds one, and /mcp's authentication, which
	// runs first, lets it through to them.
	b.run(network.SetExtraHTTPHeaders(network.Headers{"Authorization": "Bearer " + pageKey}))
	u, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	foreign := "http://" + rebound + ":" + u.Port()

	bodies := map[string]string{}
	for _, path := range []string{"/ui/", "/ui/config.json", "/mcp"} {
		var text string
		b.run(chromedp.Navigate(foreign+path), chromedp.Evaluate(`document.body.textContent`, &text))
		bodies[path] = text
		if path == "/ui/" {
			b.shot("12-foreign-host")
		}
	}
	for _, path := range []string{"/ui/", "/ui/config.json"} {
		if bodies[path] != bodies["/mcp"] || !strings.Contains(bodies[path], "Host") {
			t.Errorf("with Host %s, %s shows %q; /mcp shows %q", rebound, path, bodies[path], bodies["/mcp"])
		}
	}
	assertRefused(t, d.rec, func(e exchange) bool { return strings.HasPrefix(e.Host, rebound) }, 3)

	// Another origin: a page of another server on the same machine,
	// whose script fetches from the workbench and posts to /mcp. Without
	// the key this time (with one, every fetch would be preflighted):
	// the demo's /mcp asks for the key before it looks at the Origin, so
	// the markup server, whose /mcp has no authentication, is the one
	// whose answers must be the same.
	b.run(network.SetExtraHTTPHeaders(network.Headers{}))
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<!doctype html><title>another origin</title><p>another origin</p>")
	}))
	t.Cleanup(other.Close)
	origin := strings.TrimSuffix(other.URL, "/")
	fromOther := func(e exchange) bool { return e.Origin == origin }
	m := startMarkupServer(t)
	crossOrigin(t, b, other.URL, m.url)
	assertRefused(t, m.rec, fromOther, 4)
	want := m.rec.find(func(e exchange) bool { return fromOther(e) && e.Path == "/mcp" })

	crossOrigin(t, b, other.URL, d.url)
	seen := d.rec.find(fromOther)
	if len(seen) < 4 {
		t.Errorf("the demo saw %d requests from another origin, want 4: %+v", len(seen), seen)
	}
	for _, e := range seen {
		switch {
		case e.Path == "/mcp" && e.Status != http.StatusUnauthorized:
			t.Errorf("the demo's /mcp answered another origin's request without a key %d %q, want 401", e.Status, e.Body)
		case e.Path != "/mcp" && (len(want) == 0 || e.Status != http.StatusForbidden || e.Body != want[0].Body):
			t.Errorf("the demo's %s answered another origin %d %q, want what /mcp answers without authentication: %+v", e.Path, e.Status, e.Body, want)
		}
	}
}

// crossOrigin opens the page at from and has its script fetch the
// workbench's page, config and trace and post to /mcp at server; it fails
// the test if the script could read any answer.
func crossOrigin(t *testing.T, b *browser, from, server string) {
	t.Helper()
	var got map[string]string
	b.run(chromedp.Navigate(from), chromedp.Evaluate(`(async () => {
	  const out = {};
	  const tries = {
	    page: [`+js(server+"/ui/")+`, {}],
	    config: [`+js(server+"/ui/config.json")+`, {}],
	    trace: [`+js(server+"/ui/trace?after=0")+`, {}],
	    mcp: [`+js(server+"/mcp")+`, {method: "POST", headers: {"Content-Type": "text/plain"},
	      body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "tools/list", params: {}})}],
	  };
	  for (const [k, [u, init]] of Object.entries(tries)) {
	    try { const r = await fetch(u, init); out[k] = "read " + r.status + " " + (await r.text()).slice(0, 100); }
	    catch (e) { out[k] = "failed: " + e.name; }
	  }
	  return out;
	})()`, &got, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if len(got) != 4 {
		t.Errorf("the other origin's script tried %v", got)
	}
	for k, v := range got {
		if !strings.HasPrefix(v, "failed") {
			t.Errorf("another origin's script read %s of %s: %s", k, server, v)
		}
	}
}

// assertRefused checks that the server answered at least n exchanges that
// match, each with 403 and the body /mcp's refusal has.
func assertRefused(t *testing.T, rec *recorder, match func(exchange) bool, n int) {
	t.Helper()
	seen := rec.find(func(e exchange) bool {
		return (e.Path == "/mcp" || strings.HasPrefix(e.Path, "/ui/")) && match(e)
	})
	if len(seen) < n {
		t.Errorf("the server saw %d such requests, want %d: %+v", len(seen), n, seen)
	}
	var mcpBody string
	for _, e := range seen {
		if e.Path == "/mcp" {
			mcpBody = e.Body
		}
	}
	for _, e := range seen {
		if e.Status != http.StatusForbidden || e.Body != mcpBody {
			t.Errorf("%s %s (Host %s, Origin %q) was answered %d %q; /mcp was answered 403 %q",
				e.Method, e.Path, e.Host, e.Origin, e.Status, e.Body, mcpBody)
		}
	}
}
