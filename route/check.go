package route

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Matcher is a router that can say whether it serves a route, for the
// start-up check of a [Binding] whose handler is not an [*http.ServeMux]
// (a mux wrapped in middleware, another router). Match reports whether a
// request with method and path (escaped, as in a URL) reaches a handler
// of its own rather than not-found or method-not-allowed. It is called
// only by [Binding.Check], and must be safe for concurrent use.
//
// An adapter for chi is one line: Match of chi.Routes, with a new
// chi.Context.
type Matcher interface {
	Match(method, path string) bool
}

// placeholder fills the wildcards of a path when its route is checked.
const placeholder = "ferry-route-check"

// ServeMux returns the [Matcher] of mux, for a mux wrapped in middleware:
// a route matches when mux would serve it with exactly its pattern (or a
// pattern with no method and the same path, which serves every method; a
// GET pattern also serves HEAD).
func ServeMux(mux *http.ServeMux) Matcher {
	return muxMatcher{mux}
}

// muxMatcher checks routes on an *http.ServeMux.
type muxMatcher struct{ mux *http.ServeMux }

// Match implements [Matcher].
func (m muxMatcher) Match(method, path string) bool {
	_, pattern := m.handler(method, path)
	return pattern != ""
}

// handler asks the mux which pattern serves method and path.
func (m muxMatcher) handler(method, path string) (http.Handler, string) {
	u, err := url.Parse(path)
	if err != nil {
		return nil, ""
	}
	r := &http.Request{Method: method, URL: u, Host: DefaultHost, Header: http.Header{}}
	return m.mux.Handler(r)
}

// matchPattern reports why mux would not serve pat with exactly its
// pattern, or "" when it would.
func (m muxMatcher) matchPattern(pat *pattern, host string) string {
	u, err := url.Parse(pat.sample(placeholder))
	if err != nil {
		return err.Error()
	}
	r := &http.Request{Method: pat.method, URL: u, Host: host, Header: http.Header{}}
	_, got := m.mux.Handler(r)
	want := pat.method + " " + pat.path
	method, path, hasMethod := strings.Cut(got, " ")
	switch {
	case got == "":
		return "the mux serves no such route"
	case got == want:
		return ""
	case !strings.HasPrefix(got, "/") && hasMethod && path == pat.path && method == http.MethodGet && pat.method == http.MethodHead:
		return ""
	case strings.HasPrefix(got, "/") && got == pat.path:
		return ""
	}
	return fmt.Sprintf("the mux serves it with the pattern %q instead", got)
}

// Check reports every problem of the binding's tools, joined, each naming
// the tool and its route: those found at registration (a pattern that does
// not parse, a wildcard no argument fills, an object bound to the query
// string, a bad in tag) and every route the handler does not serve. With
// no [Matcher] (the handler is not an [*http.ServeMux] and
// [Options.Router] is nil), each route is logged as a warning to the
// server's logger instead, since it cannot be checked. The server runs it
// as a start-up check (see [ferry.Server.AddCheck]).
func (b *Binding) Check() error {
	b.mu.Lock()
	problems := append([]error(nil), b.problems...)
	plans := append([]*plan(nil), b.plans...)
	b.mu.Unlock()
	for _, pl := range plans {
		if err := b.checkRoute(pl); err != nil {
			problems = append(problems, err)
		}
	}
	return errors.Join(problems...)
}

// checkRoute checks that the handler serves pl's route.
func (b *Binding) checkRoute(pl *plan) error {
	if b.router == nil {
		b.srv.Logger().Warn("route: cannot check that the handler serves the route: set Options.Router",
			"tool", pl.tool, "route", pl.pat.method+" "+pl.pat.path)
		return nil
	}
	var why string
	if m, ok := b.router.(muxMatcher); ok {
		why = m.matchPattern(pl.pat, cmp.Or(b.host, DefaultHost))
	} else if !b.router.Match(pl.pat.method, pl.pat.sample(placeholder)) {
		why = "the router serves no such route"
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("route: tool %q, route %q: %s", pl.tool, pl.pat.method+" "+pl.pat.path, why)
}
