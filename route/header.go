package route

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// The headers a routed request carries of its own.
const (
	headerTool      = "Mcp-Tool"
	headerSession   = "Mcp-Session-Id"
	headerRequestID = "X-Request-Id"
)

// forwardedAlways are the headers of the MCP request every routed request
// carries when the MCP request did: the caller's credentials and the W3C
// trace context.
var forwardedAlways = []string{"Authorization", "Cookie", "Traceparent", "Tracestate"}

// acceptValue is the Accept header of routed requests: JSON preferred.
const acceptValue = "application/json, application/problem+json, */*;q=0.5"

// headerValue is one header of a routed request.
type headerValue struct {
	key   string // canonical
	value string
}

// fixedHeaders flattens h with canonical keys.
func fixedHeaders(h http.Header) []headerValue {
	var out []headerValue
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			out = append(out, headerValue{key: http.CanonicalHeaderKey(k), value: v})
		}
	}
	return out
}

// checkHeaderOptions reports the options' headers a binding sets itself,
// and fixed values a header cannot hold.
func checkHeaderOptions(o *Options) []error {
	var problems []error
	for _, k := range o.Forward {
		switch h := http.CanonicalHeaderKey(k); {
		case !validHeaderName(k):
			problems = append(problems, fmt.Errorf("route: Options.Forward: %q is not a header name", k))
		case ownHeader(h) || h == "Content-Type":
			problems = append(problems, fmt.Errorf("route: Options.Forward: %q cannot be forwarded: the binding sets it", k))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.Header)) {
		if !validHeaderName(k) {
			problems = append(problems, fmt.Errorf("route: Options.Header: %q is not a header name", k))
			continue
		}
		if ownHeader(http.CanonicalHeaderKey(k)) {
			problems = append(problems, fmt.Errorf("route: Options.Header: %q cannot be set: the binding sets it", k))
			continue
		}
		for _, v := range o.Header[k] {
			if strings.ContainsFunc(v, isHeaderControl) {
				problems = append(problems, fmt.Errorf("route: Options.Header: %q: a value must not hold control characters", k))
				break
			}
		}
	}
	return problems
}

// ownHeader reports whether the canonical header h is one a binding sets
// itself, or one of the Mcp-* headers, which are the protocol's.
func ownHeader(h string) bool {
	switch h {
	case headerRequestID, "Host", "Content-Length", "Transfer-Encoding", "Connection":
		return true
	}
	return strings.HasPrefix(h, "Mcp-")
}

// isHeaderControl reports whether c is a control character a header value
// cannot hold (a tab it can).
func isHeaderControl(c rune) bool { return c < ' ' && c != '\t' || c == 0x7f }

// header builds a routed request's headers; fields are those the call's
// arguments fill, and withBody adds Content-Type.
func (b *Binding) header(ctx context.Context, c *call, fields []headerValue, withBody bool) http.Header {
	ci, _ := ferry.CallInfoFromContext(ctx)
	n := 3 + len(b.fixed) + len(fields) // Mcp-Tool, X-Request-Id, Accept
	if withBody {
		n++
	}
	if ci.SessionID != "" {
		n++
	}
	for _, k := range b.forward {
		if len(ci.Header[k]) > 0 {
			n++
		}
	}
	h := make(http.Header, n) // a small map is one allocation less
	for _, f := range b.fixed {
		if _, ok := h[f.key]; ok {
			h[f.key] = append(h[f.key], f.value)
		} else {
			c.set(h, f.key, f.value)
		}
	}
	c.set(h, headerTool, c.tool)
	c.set(h, headerRequestID, c.id)
	if ci.SessionID != "" {
		c.set(h, headerSession, ci.SessionID)
	}
	for _, k := range b.forward {
		if v := ci.Header[k]; len(v) > 0 {
			c.copy(h, k, v)
		}
	}
	if _, ok := h["Accept"]; !ok { // a fixed Accept wins
		c.set(h, "Accept", acceptValue)
	}
	if withBody {
		c.set(h, "Content-Type", "application/json")
	}
	for _, f := range fields {
		c.set(h, f.key, f.value)
	}
	return h
}

// set sets h's key to the single value v, without allocating while c has
// room for it.
func (c *call) set(h http.Header, key, v string) {
	if c.nval == len(c.vals) {
		h[key] = []string{v}
		return
	}
	c.vals[c.nval] = v
	h[key] = c.vals[c.nval : c.nval+1 : c.nval+1]
	c.nval++
}

// copy sets h's key to the values vs, sharing nothing with vs.
func (c *call) copy(h http.Header, key string, vs []string) {
	if len(vs) == 1 {
		c.set(h, key, vs[0])
		return
	}
	h[key] = slices.Clone(vs)
}

// newRequestID returns a new X-Request-Id: 16 hex digits.
func newRequestID() string {
	var id [8]byte
	_, _ = rand.Read(id[:])
	var s [16]byte
	hex.Encode(s[:], id[:])
	return string(s[:])
}

// forwardList returns the headers a binding copies from the MCP request:
// [forwardedAlways] and extra, canonical, each once.
func forwardList(extra []string) []string {
	out := slices.Clone(forwardedAlways)
	for _, k := range extra {
		if h := http.CanonicalHeaderKey(k); !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}
