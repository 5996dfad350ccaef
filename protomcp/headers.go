package protomcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// headers builds the headers that travel with each call.
type headers struct {
	forward []string // canonical
	fixed   http.Header
}

// forwardedAlways are the MCP request's headers every call carries: the
// caller's credentials and the W3C trace context.
var forwardedAlways = []string{"Authorization", "Cookie", "Traceparent", "Tracestate"}

// The headers a call carries of its own.
const (
	HeaderTool    = "Mcp-Tool"       // the tool's name
	HeaderSession = "Mcp-Session-Id" // the legacy session's id, when there is one
)

func newHeaders(forward []string, fixed http.Header) (*headers, error) {
	h := &headers{forward: append([]string(nil), forwardedAlways...), fixed: http.Header{}}
	var problems []error
	own := func(k string) bool {
		switch k {
		case "Host", "Content-Type", "Content-Length", "Transfer-Encoding", "Connection", "Connect-Protocol-Version", "Te":
			return true
		}
		return len(k) > 4 && k[:4] == "Mcp-" || len(k) > 5 && (k[:5] == "Grpc-")
	}
	for _, k := range forward {
		c := http.CanonicalHeaderKey(k)
		switch {
		case !validHeaderName(k):
			problems = append(problems, fmt.Errorf("protomcp: Options.Forward: %q is not a header name", k))
		case own(c):
			problems = append(problems, fmt.Errorf("protomcp: Options.Forward: %q cannot be forwarded: the call sets it", k))
		case !slices.Contains(h.forward, c):
			h.forward = append(h.forward, c)
		}
	}
	for k, vs := range fixed {
		c := http.CanonicalHeaderKey(k)
		switch {
		case !validHeaderName(k):
			problems = append(problems, fmt.Errorf("protomcp: Options.Header: %q is not a header name", k))
			continue
		case own(c):
			problems = append(problems, fmt.Errorf("protomcp: Options.Header: %q cannot be set: the call sets it", k))
			continue
		case slices.ContainsFunc(vs, func(v string) bool { return strings.ContainsFunc(v, isHeaderControl) }):
			problems = append(problems, fmt.Errorf("protomcp: Options.Header: %q: a value must not hold control characters", k))
			continue
		}
		h.fixed[c] = append([]string(nil), vs...)
	}
	return h, errors.Join(problems...)
}

// validHeaderName reports whether k is an HTTP header name (a token).
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", c):
		default:
			return false
		}
	}
	return true
}

// isHeaderControl reports whether c is a control character a header value
// cannot hold (a tab it can).
func isHeaderControl(c rune) bool { return c < ' ' && c != '\t' || c == 0x7f }

// build returns the headers of one call of the tool named tool.
func (h *headers) build(ctx context.Context, tool string) http.Header {
	out := make(http.Header, len(h.fixed)+4)
	for k, vs := range h.fixed {
		out[k] = vs[:len(vs):len(vs)]
	}
	out[HeaderTool] = []string{tool}
	ci, _ := ferry.CallInfoFromContext(ctx)
	if ci.SessionID != "" {
		out[HeaderSession] = []string{ci.SessionID}
	}
	for _, k := range h.forward {
		if vs := ci.Header[k]; len(vs) > 0 {
			out[k] = vs[:len(vs):len(vs)] // an append copies; the MCP request's header stays as it came
		}
	}
	return out
}
