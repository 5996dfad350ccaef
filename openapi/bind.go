package openapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
)

// Binding is the route binding of a document's tools (see [Bind]): its
// job tools ([route.AddJob]) and [route.Binding.Ask] reach the same
// handler.
type Binding struct {
	*route.Binding
	tools []*Tool
}

// Tools returns the tools the binding registered, and those it could not,
// whose Err says why.
func (b *Binding) Tools() []*Tool { return append([]*Tool(nil), b.tools...) }

// Bind binds the operations of d that opts selects to the routes of h,
// the service's own handler, on srv: each becomes a route-bound tool
// ([route.Binding.AddPlaced]), so a call travels the service's middleware,
// validation and authentication, and every rule of package route holds
// (arguments escaped into the path and the query, headers free of
// control characters, problem documents read as refusals whose field
// errors name the arguments, start-up failing on a route h does not
// serve).
//
// ropts are the binding's options (see [route.New]); if its Prefix is
// empty, the path of the document's first server ([Document.ServerPath])
// is used. Bind fails when the selection does; an operation that cannot
// be served (see [Tool.Err]) is reported by srv's start-up check, naming
// it, as a route that h does not serve is.
func Bind(srv *ferry.Server, h http.Handler, d *Document, opts *Options, ropts *route.Options) (*Binding, error) {
	tools, err := d.Tools(opts)
	if err != nil {
		return nil, err
	}
	var ro route.Options
	if ropts != nil {
		ro = *ropts
	}
	if ro.Prefix == "" {
		ro.Prefix = d.ServerPath()
	}
	return bind(srv, h, tools, &ro), nil
}

// bind registers tools on a new binding of h, and their problems as a
// start-up check.
func bind(srv *ferry.Server, h http.Handler, tools []*Tool, ro *route.Options) *Binding {
	b := &Binding{Binding: route.New(srv, h, ro), tools: tools}
	var problems []error
	for _, t := range tools {
		if t.Err != nil {
			problems = append(problems, fmt.Errorf("openapi: operation %s: %w", t.Operation, t.Err))
			continue
		}
		tool := t.Tool
		if t.tagGroup && ro.Groups != nil {
			tool.Groups = nil // the binding's groups replace the tag's
		}
		b.AddPlaced(tool, t.Route, t.In)
	}
	if len(problems) > 0 {
		err := errors.Join(problems...)
		srv.AddCheck(func() error { return err })
	}
	return b
}
