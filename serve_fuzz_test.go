package ferry_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// fuzzSeeds are message bodies for the HTTP and stdio fuzz targets.
var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"f","version":"1"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"ZWNobw"}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"steps","_meta":{"progressToken":1}}}`,
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"confirm"}}`,
	`{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"x"}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file:///notes/1"}}`,
	`{"jsonrpc":"2.0","id":8,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"a"}}}`,
	`{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"debug"}}`,
	`{"jsonrpc":"2.0","id":10,"method":"resources/subscribe","params":{"uri":"file:///readme.txt"}}`,
	`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"confirm","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`,
	`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"confirm","inputResponses":{"q1":{"action":"accept"}},"requestState":"e30.AA","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`,
	`{"jsonrpc":"2.0","id":14,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	`{"jsonrpc":"2.0","id":15,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}}}`,
	`[{"jsonrpc":"2.0","id":16,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
	`{"jsonrpc":"2.0","id":"ferry-1","result":{"action":"accept"}}`,
	`{"jsonrpc":"2.0","id":17,"method":"ping","params":[]}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":`,
	`[]`,
	``,
}

// httpVariants are the header sets FuzzHTTPHandler chooses from. $S and
// $S25 stand for a valid stateless session id (2025-11-25 and 2025-03-26),
// $SF for a stateful one.
var httpVariants = []struct {
	method   string
	stateful bool
	header   map[string]string
}{
	{"POST", false, nil},
	{"POST", false, map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}},
	{"POST", false, map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Session-Id": "$S", "MCP-Protocol-Version": "2025-11-25"}},
	{"POST", false, map[string]string{"Accept": "application/json", "Mcp-Session-Id": "$S25"}},
	{"POST", false, map[string]string{"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "confirm"}},
	{"POST", false, map[string]string{"Accept": "text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}},
	{"POST", true, map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Session-Id": "$SF", "MCP-Protocol-Version": "2025-11-25"}},
	{"POST", true, map[string]string{"Accept": "application/json"}},
	{"POST", false, map[string]string{"Mcp-Session-Id": "AQ.AQ"}},
	{"POST", false, map[string]string{"Origin": "https://evil.example.com"}},
	{"GET", true, map[string]string{"Accept": "application/json", "Mcp-Session-Id": "$SF"}},
	{"DELETE", false, map[string]string{"Mcp-Session-Id": "$S"}},
}

// FuzzHTTPHandler posts arbitrary bodies with a few header sets to stateless
// and stateful handlers and checks that the handler does not panic, answers
// with an expected status, and sends a body that is JSON (or SSE events
// holding JSON), or nothing for 202 and 204.
func FuzzHTTPHandler(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(uint8(i%len(httpVariants)), []byte(s))
		f.Add(uint8(2), []byte(s))
		f.Add(uint8(4), []byte(s))
	}
	srv := newConformanceServer(f, nil)
	stateless := ferry.NewHTTPHandler(srv, nil)
	stateful := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true})
	initialize := func(h http.Handler, version string) string {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{"elicitation":{}}}}`
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/", strings.NewReader(body))
		req.Host = "localhost"
		h.ServeHTTP(rec, req)
		id := rec.Header().Get("Mcp-Session-Id")
		if rec.Code != http.StatusOK || id == "" {
			f.Fatalf("initialize %s: %d %s", version, rec.Code, rec.Body)
		}
		return id
	}
	sessions := strings.NewReplacer(
		"$S25", initialize(stateless, "2025-03-26"),
		"$SF", initialize(stateful, "2025-11-25"),
		"$S", initialize(stateless, "2025-11-25"),
	)
	allowed := []int{http.StatusOK, http.StatusAccepted, http.StatusNoContent, http.StatusBadRequest,
		http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusRequestEntityTooLarge}

	f.Fuzz(func(t *testing.T, variant uint8, body []byte) {
		v := httpVariants[int(variant)%len(httpVariants)]
		h := http.Handler(stateless)
		if v.stateful {
			h = stateful
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req := httptest.NewRequest(v.method, "/", bytes.NewReader(body)).WithContext(ctx)
		req.Host = "localhost:8080"
		for k, val := range v.header {
			req.Header.Set(k, sessions.Replace(val))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if !slices.Contains(allowed, rec.Code) {
			t.Fatalf("status %d for %s %q (variant %d); body %s", rec.Code, v.method, body, variant, rec.Body)
		}
		checkHTTPBody(t, rec, body)
	})
}

func checkHTTPBody(t *testing.T, rec *httptest.ResponseRecorder, reqBody []byte) {
	t.Helper()
	got := rec.Body.Bytes()
	switch ct := rec.Header().Get("Content-Type"); {
	case rec.Code == http.StatusAccepted || rec.Code == http.StatusNoContent:
		if len(got) != 0 {
			t.Errorf("status %d with a body for %q: %s", rec.Code, reqBody, got)
		}
	case ct == "application/json":
		if !json.Valid(got) {
			t.Errorf("body for %q is not JSON: %s", reqBody, got)
		}
	case ct == "text/event-stream":
		events := 0
		for line := range strings.Lines(string(got)) {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				if strings.TrimSpace(data) == "" {
					continue // a priming event
				}
				events++
				if !json.Valid([]byte(data)) {
					t.Errorf("SSE data for %q is not JSON: %s", reqBody, data)
				}
			}
		}
		if events == 0 {
			t.Errorf("SSE answer for %q has no events: %s", reqBody, got)
		}
	default:
		t.Errorf("status %d with Content-Type %q for %q: %s", rec.Code, ct, reqBody, got)
	}
}

// FuzzStdio feeds arbitrary input through IOTransport and checks that every
// line the server writes is one JSON value.
func FuzzStdio(f *testing.F) {
	f.Add([]byte(strings.Join(fuzzSeeds, "\n")))
	for _, s := range fuzzSeeds {
		f.Add([]byte(fuzzSeeds[0] + "\n" + s + "\n"))
		f.Add([]byte(fuzzSeeds[1] + "\n" + s + "\n"))
		f.Add([]byte(s))
	}
	srv := newConformanceServer(f, nil)
	f.Fuzz(func(t *testing.T, in []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		var out bytes.Buffer
		if err := srv.Run(ctx, &ferry.IOTransport{Reader: bytes.NewReader(in), Writer: &out}); err != nil {
			t.Fatalf("Run: %v", err)
		}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				t.Errorf("output line is not JSON: %q\ninput: %q", sc.Bytes(), in)
			}
		}
	})
}
