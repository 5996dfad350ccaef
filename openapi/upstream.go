package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry/route"
)

// DefaultUpstreamTimeout bounds one call of the upstream API when
// [UpstreamOptions.Timeout] is zero.
const DefaultUpstreamTimeout = 30 * time.Second

// maxRedirects bounds the redirects an upstream call follows, all to the
// upstream's own scheme, host and port.
const maxRedirects = 5

// UpstreamOptions configures an [Upstream]. The zero value is valid;
// every field documents its default.
type UpstreamOptions struct {
	// Header holds the headers set on every upstream request: the
	// upstream's own credentials, from configuration ("Authorization:
	// Bearer ..." from an environment variable, an X-API-Key). They
	// replace a header of the same name, so neither a tool's argument nor
	// a passed header can set them. If nil, none are set.
	Header http.Header
	// PassHeaders names headers of the MCP request that travel to the
	// upstream as they came, such as Authorization. None do by default:
	// the MCP client's token was issued for this server (its audience is
	// this server, not the API), and passing it on lets the API, or
	// anyone who reads its logs, replay it against this server and every
	// other that accepts it. Name a header only when the API is meant to
	// receive exactly that credential (an API that shares this server's
	// identity provider and audience), knowing that the server then
	// relays whatever the client sends.
	PassHeaders []string
	// Timeout bounds each upstream call, from the request to the end of
	// the answer. If zero, [DefaultUpstreamTimeout].
	Timeout time.Duration
	// MaxResponseBytes bounds what is read of an answer; the rest is not
	// read, and the tool's result says the answer was cut. If zero,
	// [route.DefaultMaxResponseBytes].
	MaxResponseBytes int64
	// Transport makes the upstream requests. If nil, a transport like
	// [http.DefaultTransport] with connect, TLS and response-header
	// timeouts of its own.
	Transport http.RoundTripper
	// Logger receives a record of each upstream failure (unreachable, too
	// slow, redirected to another host). If nil, nothing is logged.
	Logger *slog.Logger
}

// An Upstream is the http.Handler of a gateway: it sends each request a
// [route.Binding] routes to it on to a remote API, and writes the API's
// answer back, so that the binding turns it into the tool's result or
// refusal. Create one with [NewUpstream]; [Gateway] binds a document's
// operations to it.
//
// What reaches the API of a routed request: its method, its path (under
// the base URL's path, escaped as the binding escaped it) and query, its
// body, Accept, Content-Type, the headers a tool's arguments fill,
// X-Request-Id, traceparent and tracestate, then [UpstreamOptions.Header]
// and the [UpstreamOptions.PassHeaders]. Never the MCP request's
// Authorization, Cookie or Mcp-* headers unless passed.
//
// What comes back: a 2xx or 4xx answer as it is (its status, Content-Type,
// Retry-After and body, at most [UpstreamOptions.MaxResponseBytes] of
// it); a 5xx answer, an API that cannot be reached or does not answer in
// time, and a redirect to another scheme, host or port (which is not
// followed) as a 503 problem whose detail says so, which the model reads
// as "unavailable: ...". Redirects to the API's own host are followed,
// at most 5.
//
// An Upstream is safe for concurrent use.
type Upstream struct {
	base    *url.URL
	client  *http.Client
	header  http.Header
	pass    []string // canonical
	timeout time.Duration
	limit   int64
	log     *slog.Logger
}

// NewUpstream returns the handler of a gateway to the API at baseURL
// (https://api.example.com, http://127.0.0.1:8080/v1): the operations'
// paths are put after its path. It fails when baseURL is not an http or
// https URL, or holds a user, a query or a fragment (credentials go in
// [UpstreamOptions.Header]), or a header of opts is not one.
func NewUpstream(baseURL string, opts *UpstreamOptions) (*Upstream, error) {
	u, err := url.Parse(baseURL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("openapi: the upstream URL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return nil, fmt.Errorf("openapi: the upstream URL %q: want http:// or https:// and a host", u.Redacted())
	case u.User != nil:
		return nil, fmt.Errorf("openapi: the upstream URL %q holds credentials: give them as a header instead", u.Redacted())
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("openapi: the upstream URL %q has a query or fragment: give the API's base URL", u.Redacted())
	}
	var o UpstreamOptions
	if opts != nil {
		o = *opts
	}
	up := &Upstream{base: u, header: o.Header.Clone(), timeout: o.Timeout, limit: o.MaxResponseBytes, log: o.Logger}
	if err := up.checkHeaders(o.PassHeaders); err != nil {
		return nil, err
	}
	up.base.Path = strings.TrimSuffix(u.Path, "/")
	up.base.RawPath = strings.TrimSuffix(u.RawPath, "/")
	if up.timeout <= 0 {
		up.timeout = DefaultUpstreamTimeout
	}
	if up.limit <= 0 {
		up.limit = route.DefaultMaxResponseBytes
	}
	if up.log == nil {
		up.log = slog.New(slog.DiscardHandler)
	}
	transport := o.Transport
	if transport == nil {
		transport = newTransport(up.timeout)
	}
	up.client = &http.Client{Transport: transport, CheckRedirect: up.checkRedirect}
	return up, nil
}

// checkHeaders checks the fixed and passed headers' names and values.
func (up *Upstream) checkHeaders(pass []string) error {
	for k, vs := range up.header {
		if !validHeaderName(k) {
			return fmt.Errorf("openapi: upstream header %q is not a header name", k)
		}
		for _, v := range vs {
			if strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
				return fmt.Errorf("openapi: upstream header %s: a value must not hold control characters", k)
			}
		}
	}
	for _, k := range pass {
		if !validHeaderName(k) {
			return fmt.Errorf("openapi: passed header %q is not a header name", k)
		}
		h := http.CanonicalHeaderKey(k)
		if strings.HasPrefix(h, "Mcp-") || h == "Host" || h == "Content-Length" || h == "Content-Type" {
			return fmt.Errorf("openapi: header %s cannot be passed to the upstream", h)
		}
		if !slices.Contains(up.pass, h) {
			up.pass = append(up.pass, h)
		}
	}
	return nil
}

// newTransport is http.DefaultTransport's settings, with timeouts for
// connecting, the TLS handshake and the answer's headers.
func newTransport(timeout time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // the upstream is the operator's; no proxy from the environment
	t.DialContext = (&net.Dialer{Timeout: min(timeout, 10*time.Second), KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = min(timeout, 10*time.Second)
	t.ResponseHeaderTimeout = timeout
	return t
}

// errOtherHost is a redirect the upstream client does not follow.
var errOtherHost = errors.New("the API redirected to another host")

// errBrokeOff is an answer whose body could not be read to its end.
var errBrokeOff = errors.New("reading the answer")

// checkRedirect follows redirects to the base URL's scheme, host and
// port, at most maxRedirects.
func (up *Upstream) checkRedirect(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != up.base.Scheme || !strings.EqualFold(req.URL.Host, up.base.Host) {
		return fmt.Errorf("%w (%s://%s)", errOtherHost, req.URL.Scheme, req.URL.Host)
	}
	if len(via) > maxRedirects {
		return fmt.Errorf("the API redirected more than %d times", maxRedirects)
	}
	return nil
}

// forwarded are the headers of a routed request that travel upstream,
// besides those a tool's arguments fill and the passed ones.
var forwarded = []string{"Accept", "Content-Type", "X-Request-Id", "Traceparent", "Tracestate"}

// ServeHTTP sends r, a routed request, to the upstream, and writes its
// answer (see [Upstream]).
func (up *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), up.timeout)
	defer cancel()
	req, err := up.request(ctx, r)
	if err != nil {
		up.refuse(w, r, "The request cannot be sent to the API.", err)
		return
	}
	resp, err := up.client.Do(req) //nolint:gosec // G704: the URL is the operator's upstream, with a path and query the binding escaped
	if err != nil {
		up.failed(w, r, err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		up.refuse(w, r, fmt.Sprintf("The API failed: it answered %s.", resp.Status), nil)
		return
	}
	// The answer is read whole, up to one byte past the bound, before its
	// status is written: one that breaks off is a failure, not a success
	// whose text is half of it.
	data, err := io.ReadAll(io.LimitReader(resp.Body, up.limit+1))
	if err != nil {
		up.failed(w, r, fmt.Errorf("%w: %w", errBrokeOff, err))
		return
	}
	for _, k := range []string{"Content-Type", "Retry-After", "Location"} {
		if v := resp.Header.Get(k); v != "" {
			w.Header().Set(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(data) // past the binding's bound, the write fails and the result says it is cut
}

// request builds the upstream request of the routed request r.
func (up *Upstream) request(ctx context.Context, r *http.Request) (*http.Request, error) {
	u := *up.base
	u.Path = up.base.Path + r.URL.Path
	u.RawPath = up.base.EscapedPath() + r.URL.EscapedPath()
	u.RawQuery = r.URL.RawQuery
	var body io.Reader
	if r.ContentLength > 0 {
		body = r.Body
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.ContentLength = r.ContentLength
	req.Header = make(http.Header, len(forwarded)+len(up.header)+len(up.pass)+2)
	for _, k := range forwarded {
		if v := r.Header.Values(k); len(v) > 0 {
			req.Header[k] = slices.Clone(v)
		}
	}
	for _, k := range fieldHeaders(r) {
		req.Header[k] = slices.Clone(r.Header[k])
	}
	for _, k := range up.pass {
		if v := r.Header.Values(k); len(v) > 0 {
			req.Header[k] = slices.Clone(v)
		}
	}
	for k, v := range up.header {
		req.Header[http.CanonicalHeaderKey(k)] = slices.Clone(v)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "ferry-openapi-gateway")
	}
	return req, nil
}

// fieldHeaders lists the headers of a routed request that a tool's
// arguments filled: every header the binding does not set itself or copy
// from the MCP request.
func fieldHeaders(r *http.Request) []string {
	var out []string
	for k := range r.Header {
		switch {
		case slices.Contains(forwarded, k), strings.HasPrefix(k, "Mcp-"),
			k == "Authorization", k == "Cookie", k == "Host", k == "Content-Length":
		default:
			out = append(out, k)
		}
	}
	return out
}

// failed answers a request the upstream did not answer.
func (up *Upstream) failed(w http.ResponseWriter, r *http.Request, err error) {
	var detail string
	var ne net.Error
	switch {
	case r.Context().Err() != nil:
		return // the call ended: the binding reports it
	case errors.Is(err, errOtherHost):
		detail = "The API redirected the request to another host, which this gateway does not follow."
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		detail = fmt.Sprintf("The API did not answer within %s; try again later.", up.timeout)
	case strings.Contains(err.Error(), "redirected more than"):
		detail = "The API redirected the request too many times."
	case errors.Is(err, errBrokeOff):
		detail = "The API's answer broke off; try again later."
	default:
		detail = "The API cannot be reached; try again later."
	}
	up.refuse(w, r, detail, err)
}

// refuse answers a 503 problem whose detail the model reads, and logs
// err, if any.
func (up *Upstream) refuse(w http.ResponseWriter, r *http.Request, detail string, err error) {
	if err != nil {
		id, _ := route.RequestID(r)
		up.log.WarnContext(r.Context(), "openapi: upstream call failed", "method", r.Method, "path", r.URL.Path, "request_id", id, "err", err)
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusServiceUnavailable)
	_ = json.NewEncoder(w).Encode(map[string]any{"title": "Service Unavailable", "status": http.StatusServiceUnavailable, "detail": detail})
}

// Match implements [route.Matcher] for the start-up check of a gateway:
// every route is taken to exist, since the document, not a router here,
// says which routes the API serves.
func (up *Upstream) Match(method, path string) bool { return true }

// headerName matches an HTTP token, what a header's name must be
// (RFC 9110, section 5.6.2). The check runs once, on the operator's
// configuration.
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// validHeaderName reports whether s is an HTTP token.
func validHeaderName(s string) bool { return headerName.MatchString(s) }
