package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"
)

// DialHTTP connects to the Streamable HTTP server at url. opts may be nil.
func DialHTTP(ctx context.Context, url string, opts *Options) (*Client, error) {
	c := newClient(opts)
	hc, own := c.opts.HTTPClient, false
	if hc == nil {
		hc, own = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}, true
	}
	t := &httpTransport{url: url, hc: hc, own: own, header: c.opts.Header, max: c.opts.Limits.MaxResponseBytes, peer: c}
	return c.start(ctx, t)
}

// httpTransport carries messages as Streamable HTTP POSTs.
type httpTransport struct {
	url    string
	hc     *http.Client
	own    bool // hc is the transport's own, to close
	header http.Header
	max    int64
	peer   *Client

	mu      sync.Mutex // guards version and session
	version string     // the negotiated version, "" before initialize
	session string     // the legacy Mcp-Session-Id
}

// cancelByNotice: a modern request is cancelled by closing its stream.
func (t *httpTransport) cancelByNotice(modern bool) bool { return !modern }

func (t *httpTransport) setProtocol(v string) {
	t.mu.Lock()
	t.version = v
	t.mu.Unlock()
}

// post sends one message.
func (t *httpTransport) post(ctx context.Context, body []byte, r *outgoing) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	for k, vs := range t.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	t.mu.Lock()
	version, session := t.version, t.session
	t.mu.Unlock()
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if r != nil && version >= Version20260728 {
		req.Header.Set("Mcp-Method", r.method)
		if r.name != "" || r.method == "tools/call" || r.method == "prompts/get" || r.method == "resources/read" {
			req.Header.Set("Mcp-Name", headerValue(r.name))
		}
		for k, vs := range r.header {
			req.Header[k] = vs
		}
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err) // a *url.Error names the method and URL
	}
	return resp, nil
}

func (t *httpTransport) call(ctx context.Context, r *outgoing) (*message, error) {
	resp, err := t.post(ctx, encodeRequest(r.id, r.method, r.params), r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if r.method == "initialize" {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			t.mu.Lock()
			t.session = sid
			t.mu.Unlock()
		}
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case ct == "text/event-stream" && resp.StatusCode == http.StatusOK:
		return t.readStream(ctx, resp.Body, r)
	case ct == "application/json":
		data, err := readAtMost(resp.Body, t.max)
		if err != nil {
			return nil, fmt.Errorf("client: reading the %s answer: %w", r.method, err)
		}
		m, derr := decodeMessage(data)
		switch {
		case derr != nil && resp.StatusCode != http.StatusOK:
			return nil, statusError(resp, data)
		case derr != nil:
			return nil, fmt.Errorf("client: the %s answer is %w", r.method, derr)
		case !m.isResponse():
			return nil, fmt.Errorf("client: the %s answer is the server's %s, not a response", r.method, m.Method)
		case m.err != nil && (m.hasNoID() || bytes.Equal(m.ID, idJSON(r.id))):
			m.err.status = resp.StatusCode
			return m, nil
		case !bytes.Equal(m.ID, idJSON(r.id)):
			return nil, fmt.Errorf("client: the %s answer has id %s, not %d", r.method, m.ID, r.id)
		}
		return m, nil
	case resp.StatusCode != http.StatusOK:
		data, _ := readAtMost(resp.Body, 512)
		return nil, statusError(resp, data)
	}
	return nil, fmt.Errorf("client: the %s answer has content type %q, not JSON or an event stream", r.method, resp.Header.Get("Content-Type"))
}

// statusError is the error of an HTTP answer without a JSON-RPC message.
func statusError(resp *http.Response, body []byte) *StatusError {
	if len(body) > 512 {
		body = body[:512]
	}
	return &StatusError{StatusCode: resp.StatusCode, Body: string(bytes.TrimSpace(body)), Header: resp.Header}
}

// errTooLarge reports a message beyond Limits.MaxResponseBytes.
var errTooLarge = errors.New("larger than Limits.MaxResponseBytes")

// readAtMost reads r to its end, failing beyond max bytes.
func readAtMost(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errTooLarge
	}
	return data, nil
}

// readStream reads an SSE answer until the response to r, answering the
// server's requests and handing on its notifications.
func (t *httpTransport) readStream(ctx context.Context, body io.Reader, r *outgoing) (*message, error) {
	ev := &eventReader{r: bufio.NewReader(body), max: t.max}
	for {
		data, err := ev.next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("client: the server ended the %s stream without an answer", r.method)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("client: reading the %s stream: %w", r.method, err)
		}
		if len(data) == 0 {
			// a priming event or a keepalive
			if err := r.watch.heard(); err != nil {
				return nil, err
			}
			continue
		}
		m, err := decodeMessage(data)
		if err != nil {
			return nil, fmt.Errorf("client: the %s stream carries an event that is %w", r.method, err)
		}
		if m.isResponse() && (bytes.Equal(m.ID, idJSON(r.id)) || m.err != nil && m.hasNoID()) {
			return m, nil
		}
		if err := r.watch.heard(); err != nil {
			return nil, err
		}
		switch {
		case m.isRequest():
			r.watch.hold()
			reply := t.peer.serve(ctx, m)
			err := t.send(ctx, reply)
			r.watch.release()
			if err != nil {
				return nil, fmt.Errorf("client: answering the server's %s: %w", m.Method, err)
			}
		case m.isNotification():
			t.peer.notified(m)
		}
	}
}

// send posts a message that gets no answer but 202 (a notification or the
// client's response).
func (t *httpTransport) send(ctx context.Context, body []byte) error {
	resp, err := t.post(ctx, body, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := readAtMost(resp.Body, 4096)
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		if m, err := decodeMessage(data); err == nil && m.err != nil {
			m.err.status = resp.StatusCode
			return m.err
		}
		return statusError(resp, data)
	}
	return nil
}

func (t *httpTransport) notify(ctx context.Context, method string, params json.RawMessage) error {
	return t.send(ctx, encodeNotification(method, params))
}

// close ends a legacy session with DELETE, waiting at most timeout for
// the answer.
func (t *httpTransport) close(timeout time.Duration) error {
	t.mu.Lock()
	session, version := t.session, t.version
	t.session = ""
	t.mu.Unlock()
	if session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.url, nil); err == nil {
			for k, vs := range t.header {
				req.Header[k] = append([]string(nil), vs...)
			}
			req.Header.Set("Mcp-Session-Id", session)
			if version != "" {
				// Every request after initialize names the version.
				req.Header.Set("MCP-Protocol-Version", version)
			}
			if resp, err := t.hc.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
				resp.Body.Close()
			}
		}
	}
	if t.own {
		t.hc.CloseIdleConnections()
	}
	return nil
}
