package otelferry_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// serveStdio runs the rig's server over the given request lines (after
// initialize) and returns the answers.
func (r *rig) serveStdio(t *testing.T, lines ...string) string {
	t.Helper()
	in := `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
		strings.Join(lines, "\n") + "\n"
	var out strings.Builder
	if err := r.srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// Names a client makes up (tools, prompts, methods the server does not
// have) make neither span names nor metric series: an attacker sending a
// thousand made-up tool names must not make a thousand of either.
func TestMadeUpNamesStayOutOfSpanNamesAndSeries(t *testing.T) {
	r := newRig(t, nil)
	var lines []string
	for i := range 50 {
		n := strconv.Itoa(i)
		lines = append(lines,
			`{"jsonrpc":"2.0","id":"t`+n+`","method":"tools/call","params":{"name":"made-up-`+n+`","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":"p`+n+`","method":"prompts/get","params":{"name":"made-up-`+n+`"}}`,
			`{"jsonrpc":"2.0","id":"m`+n+`","method":"made/up/`+n+`"}`)
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	r.serveStdio(t, lines...)

	names := map[string]int{}
	for _, s := range r.spans.Ended() {
		names[s.Name()]++
	}
	want := map[string]int{"initialize": 1, "tools/call": 50, "prompts/get": 50, "_OTHER": 50, "tools/call echo": 1}
	if len(names) != len(want) {
		t.Fatalf("span names %v, want %v", names, want)
	}
	for k, v := range want {
		if names[k] != v {
			t.Fatalf("span names %v, want %v", names, want)
		}
	}
	// The made-up tool's name is still on its span (one span's worth).
	for _, s := range r.spans.Ended() {
		if s.Name() == "tools/call" {
			if a := attrs(s.Attributes()); !strings.HasPrefix(a["gen_ai.tool.name"], "made-up-") || a["error.type"] == "" {
				t.Fatalf("the unknown tool's span: %v", a)
			}
			break
		}
	}
	// The histogram: one series per (method, known target, outcome), not
	// one per made-up name.
	points := r.histogram(t)
	if len(points) != 5 {
		for _, p := range points {
			t.Log(p.Attributes.ToSlice())
		}
		t.Fatalf("%d series, want 5 (initialize, echo, unknown tool, unknown prompt, unknown method)", len(points))
	}
	for _, p := range points {
		m := attrs(p.Attributes.ToSlice())
		if strings.Contains(m["gen_ai.tool.name"]+m["gen_ai.prompt.name"]+m["mcp.method.name"], "made") {
			t.Errorf("a made-up name in a series: %v", m)
		}
	}
}

// A malformed trace context in _meta is ignored (the span has no remote
// parent, nothing panics, the request is answered), and a valid one of a
// later request still parents its span.
func TestMalformedTraceparentIsIgnored(t *testing.T) {
	bad := []string{
		"", "garbage", "00-", "00-" + remoteTrace, "00-" + remoteTrace + "-" + remoteSpan,
		"00-00000000000000000000000000000000-" + remoteSpan + "-01", // zero trace id
		"00-" + remoteTrace + "-0000000000000000-01",                // zero span id
		"ff-" + remoteTrace + "-" + remoteSpan + "-01",              // version ff is invalid
		"00-" + strings.ToUpper(remoteTrace) + "-" + remoteSpan + "-01",
		"00-" + remoteTrace + "-" + remoteSpan + "-zz",
		"00-" + remoteTrace + "-" + remoteSpan + "-01-extra",
		strings.Repeat("0", 10000),
		"00-\u00e9" + remoteTrace[2:] + "-" + remoteSpan + "-01",
	}
	r := newRig(t, nil)
	var lines []string
	for i, tp := range bad {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":{"name":"echo","arguments":{},`+
			`"_meta":{"traceparent":"`+tp+`","tracestate":"`+strings.Repeat("x=", 600)+`","baggage":"%%%;;;===,,"}}}`)
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":999,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"traceparent":"`+traceparent+`"}}}`)
	out := r.serveStdio(t, lines...)
	if got := strings.Count(out, `"secret result"`); got != len(bad)+1 {
		t.Fatalf("%d answers of the tool, want %d:\n%s", got, len(bad)+1, out)
	}
	for _, s := range r.spans.Ended() {
		if s.Name() != "tools/call echo" {
			continue
		}
		id := attrs(s.Attributes())["jsonrpc.request.id"]
		remote := s.Parent().IsValid() && s.Parent().IsRemote()
		if id == "999" {
			if !remote || s.Parent().SpanID().String() != remoteSpan {
				t.Errorf("the valid traceparent did not parent its span: %v", s.Parent())
			}
		} else if remote {
			t.Errorf("request %s: a malformed traceparent became the parent: %v", id, s.Parent())
		}
	}
}
