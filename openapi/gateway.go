package openapi

import (
	"net/http"
	"slices"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
)

// Gateway serves the operations of d that opts selects, on srv, as tools
// that call the remote API behind up: each is a route-bound tool (see
// [Bind]) whose handler is up, so that the arguments fill the request by
// the rules of package route (escaped path segments, no "." or ".."
// segments, no control characters in a header), and the API's problem
// documents are refusals whose field errors name the arguments.
//
// The binding forwards the headers up passes. The headers up sets (the
// API's credentials), those it passes, and Authorization and Cookie are
// never a tool's argument: an operation's header parameter of one of
// those names is left out of its tool, with a note. The routes cannot be
// checked before a call: the document says which the API serves. Paths
// are put after the upstream URL's path, not the document's servers.
func Gateway(srv *ferry.Server, up *Upstream, d *Document, opts *Options) (*Binding, error) {
	own := slices.Clone(up.pass)
	for k := range up.header {
		own = append(own, http.CanonicalHeaderKey(k))
	}
	tools, err := d.tools(opts, own)
	if err != nil {
		return nil, err
	}
	ro := &route.Options{Router: up, MaxResponseBytes: up.limit, Forward: up.pass}
	return bind(srv, up, tools, ro), nil
}
