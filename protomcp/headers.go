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
// W3C trace context, and the caller's credentials when the call stays in
// the process (see [credentials]).
var forwardedAlways = []string{"Traceparent", "Tracestate"}

// credentials are the MCP request's headers that travel with a call the
// service serves in the same process ([Handler], a generated direct
// adapter, a [DispatcherFunc]). They do not travel to a remote server
// ([Client]) unless [Options.Forward] names them: the MCP client's token
// was issued for this server, and the protocol forbids passing it on to
// another (no token passthrough).
var credentials = []string{"Authorization", "Cookie"}

// The headers a call carries of its own.
const (
	HeaderTool    = "Mcp-Tool"       // the tool's name
	HeaderSession = "Mcp-Session-Id" // the legacy session's id, when there is one
)

// newHeaders checks the options' headers; remote says whether the calls
// leave the process, when the caller's credentials stay behind.
func newHeaders(forward []string, fixed http.Header, remote bool) (*headers, error) {
	h := &headers{forward: append([]string(nil), forwardedAlways...), fixed: http.Header{}}
	if !remote {
		h.forward = append(h.forward, credentials...)
	}
	var problems []error
	for _, k := range forward {
		c := http.CanonicalHeaderKey(k)
		switch {
		case !validHeaderName(k):
			problems = append(problems, fmt.Errorf("protomcp: Options.Forward: %q is not a header name", k))
		case reserved(c):
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
		case reserved(c):
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

// reserved reports whether the canonical header name k belongs to the
// call itself: its framing and encoding (Host, Content-*, Accept-Encoding,
// Transfer-Encoding, Te, Trailer and the hop-by-hop headers), the RPC
// protocols' own (Connect-*, Grpc-*, such as a deadline) and the ones the
// call carries of its own (Mcp-*). Set from the MCP request, they would let
// its caller change how the service reads the call.
func reserved(k string) bool {
	switch k {
	case "Host", "Accept-Encoding", "Transfer-Encoding", "Te", "Trailer", "Connection", "Keep-Alive", "Upgrade",
		"Proxy-Connection", "Proxy-Authorization", "Proxy-Authenticate", "Expect":
		return true
	}
	for _, prefix := range []string{"Content-", "Connect-", "Grpc-", "Mcp-"} {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
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
