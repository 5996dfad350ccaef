// Package wiretest sends hand-written JSON-RPC messages to an MCP server
// over Streamable HTTP, for the tests of what is on the wire: a status, a
// header, a body to the byte, a message no client would send. Tests of
// what a client sees use ferrytest's client instead.
//
// It serves the tests of the root module only (it is internal) and
// imports nothing of Ferry, so that the root package's own white-box
// tests may use it too. Its functions fail the test on a transport error.
package wiretest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Meta is the _meta member a 2026-07-28 request carries, to write into
// its params: `{"name":"echo",` + wiretest.Meta + `}`.
const Meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// Answer is one HTTP answer as a test compares it.
type Answer struct {
	Status int
	Header http.Header
	Body   string
}

// Modern returns the header pairs of a 2026-07-28 request of method, with
// Mcp-Name set to name unless it is empty, to pass to [Post] or [Serve]
// before the test's own.
func Modern(method, name string) []string {
	h := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if name != "" {
		h = append(h, "Mcp-Name", name)
	}
	return h
}

// Post sends body in a POST to the MCP endpoint url with the Content-Type
// and Accept a client sends and then the header pairs given, added in
// order (a "Host" pair sets the request's Host), and returns the answer.
func Post(t testing.TB, url, body string, header ...string) Answer {
	t.Helper()
	req := request(t, url, body, header)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("wiretest: POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("wiretest: reading the answer of POST %s: %v", url, err)
	}
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: string(data)}
}

// Serve posts body to h in process, as [Post] does over the network, to
// http://localhost/mcp.
func Serve(t testing.TB, h http.Handler, body string, header ...string) Answer {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, request(t, "http://localhost/mcp", body, header))
	return Answer{Status: w.Code, Header: w.Header(), Body: w.Body.String()}
}

func request(t testing.TB, url, body string, header []string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatalf("wiretest: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		if http.CanonicalHeaderKey(header[i]) == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Add(header[i], header[i+1])
	}
	return req
}

// Initialize opens a legacy session of the 2025-11-25 version at url with
// the header pairs given (credentials) and returns its id. It fails t if
// the server answers anything but 200 with a session id.
func Initialize(t testing.TB, url string, header ...string) string {
	t.Helper()
	const body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wiretest","version":"1"}}}`
	a := Post(t, url, body, header...)
	id := a.Header.Get("Mcp-Session-Id")
	if a.Status != http.StatusOK || id == "" {
		t.Fatalf("wiretest: initialize at %s: %d, session %q: %s", url, a.Status, id, a.Body)
	}
	return id
}
