package ferry

// This file holds the list methods' paging: signed cursors, per-caller
// filtering, and what a modern list says of its caching.

import (
	"context"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// listTools answers tools/list: the tools the caller may see, a page at
// a time.
func (s *Server) listTools(ctx context.Context, r *request, b []byte) ([]byte, error) {
	start := len(b)
	var err error
	if s.discovery != nil {
		b, err = s.listDiscovery(ctx, r, b)
	} else {
		f := listFilter[*toolEntry]{
			visible: func(e *toolEntry) bool { return s.visibleTool(ctx, &e.info) },
			always:  s.opts.ReadOnly || s.opts.Visible != nil, hook: s.opts.Visible != nil}
		if s.apps != nil {
			f.wire, f.hook = s.appToolWire(r), true
		}
		b, err = listPage(s, r, b, &s.tools, f)
	}
	if s.toolsets != nil && err == nil && toolsetsOf(r) != nil {
		b = s.listToolset(r, b, start)
	}
	return b, err
}

// listPrompts answers prompts/list.
func (s *Server) listPrompts(ctx context.Context, r *request, b []byte) ([]byte, error) {
	return listPage(s, r, b, &s.prompts, listFilter[*promptEntry]{
		visible: func(e *promptEntry) bool { return s.allowsEntry(ctx, e.prompt.Scopes, e.prompt.Roles) }})
}

// listResources answers resources/list.
func (s *Server) listResources(ctx context.Context, r *request, b []byte) ([]byte, error) {
	return listPage(s, r, b, &s.resources, listFilter[*resourceEntry]{
		visible: func(e *resourceEntry) bool {
			return s.allowsEntry(ctx, e.res.Scopes, e.res.Roles) && (e.ext == 0 || r.caps.ext.has(e.ext))
		}})
}

// listTemplates answers resources/templates/list.
func (s *Server) listTemplates(ctx context.Context, r *request, b []byte) ([]byte, error) {
	return listPage(s, r, b, &s.templates, listFilter[*templateEntry]{
		visible: func(e *templateEntry) bool { return s.allowsEntry(ctx, e.tmpl.Scopes, e.tmpl.Roles) }})
}

// listFilter is how a list method filters its entries for the caller.
type listFilter[T entry] struct {
	// visible reports whether the caller sees an entry.
	visible func(T) bool
	// always filters even a registry without guarded entries (a read-only
	// server's tools, a Visible hook).
	always bool
	// hook marks a filter that depends on the caller beyond the entries'
	// requirements ([ServerOptions.Visible], the client's extensions).
	hook bool
	// wire, if not nil, is an entry's JSON for this caller, in place of
	// its wire(): a tool without its app for a client that does not speak
	// apps.
	wire func(T) []byte
}

// listPage appends one page of a list method's result, in the member
// its row names (page). f.visible filters
// the entries before paging, when some may be hidden: a hidden entry takes
// no place in a page, and the cursor (the last key sent) skips past it as
// past any other. It runs under s.mu's read lock, as
// [ServerOptions.Visible] says. A list that depends on its caller says
// cacheScope "private" in the modern era.
func listPage[T entry](s *Server, r *request, b []byte, reg *registry[T], f listFilter[T]) ([]byte, error) {
	member := r.row.page
	after, err := s.readCursor(member, r.params.Cursor)
	if err != nil {
		return b, err
	}
	s.mu.RLock()
	private := f.hook || reg.guarded > 0
	var items []T
	more := false
	switch view := r.peer.groups; {
	case view != nil:
		items, more = filterPage(reg.from(after), s.pageSize, func(e T) bool {
			return view.admits(e.groupNames()) && f.visible(e)
		})
	case !f.always && reg.guarded == 0:
		items, more = reg.page(after, s.pageSize)
	default:
		items, more = filterPage(reg.from(after), s.pageSize, f.visible)
	}
	b = appendKey(b, member)
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		if f.wire != nil {
			b = append(b, f.wire(it)...)
		} else {
			b = append(b, it.wire()...)
		}
	}
	last := ""
	if more {
		last = items[len(items)-1].key() // items may alias the registry
	}
	s.mu.RUnlock()
	b = append(b, ']')
	if more {
		b = appendKey(b, "nextCursor")
		b = jsontext.AppendString(b, s.keys.sign(cursorPurpose+member, []byte(last)))
	}
	if r.modern {
		b = appendCacheable(b, private)
	}
	return b, nil
}

// filterPage returns the first size entries of rest that visible keeps,
// and whether it keeps any after them.
func filterPage[T entry](rest []T, size int, visible func(T) bool) (page []T, more bool) {
	page = make([]T, 0, min(size, len(rest))) // rest is the registry's: never written
	for _, e := range rest {
		if !visible(e) {
			continue
		}
		if len(page) == size {
			return page, true
		}
		page = append(page, e)
	}
	return page, false
}

// cursorPurpose signs list cursors, one purpose per list, so that a cursor
// of one list is not accepted by another.
const cursorPurpose = "cursor "

// readCursor returns the key a list cursor resumes after, "" for the first
// page. A cursor the server did not issue for this list is -32602.
func (s *Server) readCursor(member string, cursor *string) (string, error) {
	if cursor == nil || *cursor == "" {
		return "", nil
	}
	last, err := s.keys.verify(cursorPurpose+member, *cursor)
	if err != nil || len(last) == 0 {
		return "", NewError(CodeInvalidParams, "invalid cursor %q: pass the nextCursor of a previous page", *cursor)
	}
	return string(last), nil
}

// listTTL is how long a modern client may cache a list.
const listTTL = 60_000

// appendCacheable appends how long a modern client may cache a result,
// and whether a shared cache may: not when the result depends on the
// caller (private).
func appendCacheable(b []byte, private bool) []byte {
	b = appendKey(b, "ttlMs")
	b = strconv.AppendInt(b, listTTL, 10)
	b = appendKey(b, "cacheScope")
	if private {
		return append(b, `"private"`...)
	}
	return append(b, `"public"`...)
}
