package interop

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// wireLog records every HTTP exchange a client makes, so that a failing test
// can show the exact requests and responses that led to the failure.
// It is safe for concurrent use.
type wireLog struct {
	mu        sync.Mutex // guards exchanges and the buffers they hold
	exchanges []*exchange
}

// exchange is one recorded HTTP request and its response.
type exchange struct {
	method, url string
	reqHeader   http.Header
	reqBody     []byte
	status      int // 0 if the round trip failed
	respHeader  http.Header
	respBody    bytes.Buffer // filled as the client reads it
	err         error
}

// wireHeaders are the request and response headers worth showing.
var wireHeaders = []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Content-Type"}

// newHTTPClient returns an HTTP client that records into a new wireLog, which
// is written to the test log if t fails.
func newHTTPClient(t *testing.T) (*http.Client, *wireLog) {
	w := new(wireLog)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("HTTP exchanges:\n%s", w)
		}
	})
	return &http.Client{Transport: &recordingTransport{next: http.DefaultTransport, log: w}}, w
}

// statuses returns the status codes of the recorded exchanges that used
// the given HTTP method, in order.
func (w *wireLog) statuses(method string) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var codes []int
	for _, e := range w.exchanges {
		if e.method == method {
			codes = append(codes, e.status)
		}
	}
	return codes
}

func (w *wireLog) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for i, e := range w.exchanges {
		fmt.Fprintf(&b, "#%d %s %s\n", i+1, e.method, e.url)
		writeHeaders(&b, e.reqHeader)
		if len(e.reqBody) > 0 {
			fmt.Fprintf(&b, "  > %s\n", e.reqBody)
		}
		if e.err != nil {
			fmt.Fprintf(&b, "  error: %v\n", e.err)
			continue
		}
		fmt.Fprintf(&b, "  < %d %s\n", e.status, http.StatusText(e.status))
		writeHeaders(&b, e.respHeader)
		if e.respBody.Len() > 0 {
			fmt.Fprintf(&b, "  < %s\n", strings.TrimSpace(e.respBody.String()))
		}
	}
	return b.String()
}

func writeHeaders(b *strings.Builder, h http.Header) {
	for _, k := range wireHeaders {
		if v := h.Values(k); len(v) > 0 {
			fmt.Fprintf(b, "    %s: %s\n", k, strings.Join(v, ", "))
		}
	}
}

// recordingTransport is an http.RoundTripper that records into a wireLog.
type recordingTransport struct {
	next http.RoundTripper
	log  *wireLog
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	e := &exchange{method: req.Method, url: req.URL.String(), reqHeader: req.Header.Clone()}
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		e.reqBody = body
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := rt.next.RoundTrip(req)
	rt.log.mu.Lock()
	defer rt.log.mu.Unlock()
	rt.log.exchanges = append(rt.log.exchanges, e)
	if err != nil {
		e.err = err
		return nil, err
	}
	e.status = resp.StatusCode
	e.respHeader = resp.Header.Clone()
	resp.Body = &recordingBody{ReadCloser: resp.Body, log: rt.log, buf: &e.respBody}
	return resp, nil
}

// recordingBody copies what is read from a response body into its exchange.
type recordingBody struct {
	io.ReadCloser
	log *wireLog
	buf *bytes.Buffer // guarded by log.mu
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.log.mu.Lock()
		b.buf.Write(p[:n])
		b.log.mu.Unlock()
	}
	return n, err
}
