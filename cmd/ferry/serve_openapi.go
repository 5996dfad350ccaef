package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/openapi"
)

// buildOpenAPI makes the server of an OpenAPI document's selected
// operations, as tools calling the upstream, checked, saying on stderr
// what it serves and what the conversion changed.
func (s *server) buildOpenAPI(ctx context.Context) (*ferry.Server, error) {
	start := time.Now()
	u := &s.cfg.remote
	header, err := u.headers(s.env.getenv)
	if err != nil {
		return nil, err
	}
	up, err := openapi.NewUpstream(u.upstream, &openapi.UpstreamOptions{Header: header, PassHeaders: u.passHeaders,
		Timeout: u.timeout, MaxResponseBytes: u.maxBytes, Logger: s.log})
	if err != nil {
		return nil, serveUsage("-upstream: " + err.Error())
	}
	doc, err := openapi.Load(ctx, u.openapi)
	if err != nil {
		return nil, fmt.Errorf("-openapi %s: %s", u.openapi, joinLines(err))
	}
	title := doc.Title()
	if title == "" {
		title = u.openapi
	}
	srv := ferry.NewServer("ferry-serve", version(), s.remoteOptions(title, "The operations of the API "+title+" as tools."))
	b, err := openapi.Gateway(srv, up, doc, &openapi.Options{Select: u.operations, NamePrefix: u.toolPrefix})
	if err != nil {
		return nil, fmt.Errorf("-openapi %s: %s", u.openapi, joinLines(err))
	}
	tools := b.Tools()
	for _, t := range tools {
		for _, n := range t.Notes {
			s.say("note: %s: %s", t.Tool.Name, oneLine(n))
		}
	}
	if err := srv.Check(); err != nil {
		return nil, fmt.Errorf("the document's operations cannot be served: %s; leave them out with -operations '!ID'", joinLines(err))
	}
	s.say("serving %d of the %d operations of %s (OpenAPI %s) from %s", len(tools), len(doc.Operations()), title, doc.Version(), u.upstream)
	s.sayServed(srv, start)
	return srv, nil
}

// remoteOptions are the server options of a remote API.
func (s *server) remoteOptions(title, description string) *ferry.ServerOptions {
	opts := &ferry.ServerOptions{
		Title:       "ferry serve: " + title,
		Description: description,
		Logger:      s.log,
		ReadOnly:    !s.cfg.writes,
		Confirm:     s.cfg.confirm,
		Limits:      ferry.Limits{CallTimeout: s.cfg.callTimeout, ConfirmTimeout: s.cfg.confirmTimeout},
		Observer:    s.observer(),
	}
	s.cfg.limits.apply(opts)
	return opts
}

// sayServed says how many tools are served, whether read-only, and the
// per-caller limits.
func (s *server) sayServed(srv *ferry.Server, start time.Time) {
	tools := srv.Catalog().Tools()
	writes := 0
	for _, t := range tools {
		if t.Writes() {
			writes++
		}
	}
	mode := fmt.Sprintf("with writes (%d write)", writes)
	if !s.cfg.writes {
		mode = fmt.Sprintf("read-only: %d that write are hidden (give -writes to serve them)", writes)
	}
	s.say("%d tools, %s; ready in %s", len(tools)-writes*boolInt(!s.cfg.writes), mode, time.Since(start).Round(time.Millisecond))
	s.say("limits per caller: %s", &s.cfg.limits)
	s.say("result budget: %s", s.cfg.limits.budget())
	s.sayConfirm(srv)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
