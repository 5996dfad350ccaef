package ferry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/yosida95/uritemplate/v3"
)

// Resource describes a resource with a fixed URI.
type Resource struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        int64        `json:"size,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	// Scopes and Roles are what a caller needs to see and read the
	// resource, as for [Tool.Scopes] and [Tool.Roles]. They hold for its
	// URI even where a template would match it: a caller without them
	// reads the URI as not found.
	Scopes []string `json:"-"`
	Roles  []string `json:"-"`
	// Groups name the groups the resource belongs to, as [Tool.Groups]
	// does.
	Groups []string `json:"-"`
}

// ResourceTemplate describes a family of resources whose URIs match an
// RFC 6570 URI template, such as "file:///notes/{id}" or
// "orders://{region}/{id}{?expand}".
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	// Values are the values completion/complete suggests for a variable,
	// filtered by what is typed. [AddResourceTemplate] fills it from enum
	// tags.
	Values map[string][]string `json:"-"`
	// Complete answers completion/complete for a variable instead of Values.
	Complete map[string]Completer `json:"-"`
	// Scopes and Roles are what a caller needs to see the template and
	// read its resources, as for [Tool.Scopes] and [Tool.Roles].
	Scopes []string `json:"-"`
	Roles  []string `json:"-"`
	// Groups name the groups the template belongs to, as [Tool.Groups]
	// does.
	Groups []string `json:"-"`
}

// ReadResourceRequest is a resources/read as a resource handler sees it.
type ReadResourceRequest struct {
	URI string
	// Vars holds the template's variables, for a template's handler.
	Vars map[string]string
}

// ResourceHandler reads a resource. Returning an error that wraps
// [ErrResourceNotFound] tells the client the URI names nothing; a returned
// [*Error] reaches the client as is; any other error becomes -32603 with
// the details logged.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) ([]ResourceContents, error)

type resourceEntry struct {
	requirement
	res     Resource
	handler ResourceHandler
	json    []byte
	// ext, if not 0, is the extension a client must declare to see the
	// resource (an app's, [Server.AddApp]).
	ext Extension
}

func (e *resourceEntry) key() string { return e.res.URI }
func (e *resourceEntry) guarded() bool {
	return e.requirement.guarded() || e.ext != 0
}
func (e *resourceEntry) wire() []byte { return e.json }

type templateEntry struct {
	requirement
	tmpl     ResourceTemplate
	handler  ResourceHandler
	compiled *uritemplate.Template
	json     []byte
}

func (e *templateEntry) key() string  { return e.tmpl.URITemplate }
func (e *templateEntry) wire() []byte { return e.json }

func (e *templateEntry) hasVar(name string) bool {
	for _, v := range e.compiled.Varnames() {
		if v == name {
			return true
		}
	}
	return false
}

// AddResource registers a resource, replacing any of the same URI.
func (s *Server) AddResource(r Resource, h ResourceHandler) {
	s.addResource(r, h, 0)
}

// addResource registers a resource that only clients that declared ext
// see, or every client if ext is 0.
func (s *Server) addResource(r Resource, h ResourceHandler, ext Extension) {
	if h == nil {
		panic("ferry: AddResource needs a handler") //nolint:forbidigo // a programmer error at registration, as for AddTool
	}
	if r.URI == "" || r.Name == "" {
		s.problem(fmt.Errorf("resource %q: a resource needs a URI and a name", r.URI))
		return
	}
	r.Groups = handlerGroups(r.Groups, h)
	if err := groupProblem("resource", r.URI, r.Groups); err != nil {
		s.problem(err)
		return
	}
	if pr := requirementProblems(r.Scopes, r.Roles); pr != nil {
		s.problem(fmt.Errorf("resource %q: %s", r.URI, strings.Join(pr, "; ")))
		return
	}
	listed := r
	listed.Description = s.describe(r.Description, r.Scopes, r.Roles)
	data, err := marshalInto(nil, listed)
	if err != nil {
		s.problem(fmt.Errorf("resource %q: %w", r.URI, err))
		return
	}
	e := &resourceEntry{requirement: requirement{r.Scopes, r.Roles}, res: r, handler: h, json: data, ext: ext}
	s.mu.Lock()
	s.resources.add(e)
	s.mu.Unlock()
	s.listChanged("notifications/resources/list_changed", audienceOf(s, []watchedEntry{e}))
}

// AddResourceTemplate registers a resource template whose handler reads the
// variables from req.Vars. A template that does not parse is reported by
// [Server.Check].
func (s *Server) AddResourceTemplate(t ResourceTemplate, h ResourceHandler) {
	if h == nil {
		panic("ferry: AddResourceTemplate needs a handler") //nolint:forbidigo // a programmer error at registration, as for AddTool
	}
	compiled, err := uritemplate.New(t.URITemplate)
	if err != nil {
		s.problem(fmt.Errorf("resource template %q: %w", t.URITemplate, err))
		return
	}
	if t.Name == "" {
		s.problem(fmt.Errorf("resource template %q has no name", t.URITemplate))
	}
	t.Groups = handlerGroups(t.Groups, h)
	if err := groupProblem("resource template", t.URITemplate, t.Groups); err != nil {
		s.problem(err)
		return
	}
	if pr := requirementProblems(t.Scopes, t.Roles); pr != nil {
		s.problem(fmt.Errorf("resource template %q: %s", t.URITemplate, strings.Join(pr, "; ")))
		return
	}
	for name := range t.Values {
		if !slices.Contains(compiled.Varnames(), name) {
			s.problem(fmt.Errorf("resource template %q: completion values for %q, which is not one of its variables", t.URITemplate, name))
		}
	}
	listed := t
	listed.Description = s.describe(t.Description, t.Scopes, t.Roles)
	data, err := marshalInto(nil, listed)
	if err != nil {
		s.problem(fmt.Errorf("resource template %q: %w", t.URITemplate, err))
		return
	}
	e := &templateEntry{requirement: requirement{t.Scopes, t.Roles}, tmpl: t, handler: h, compiled: compiled, json: data}
	s.mu.Lock()
	s.templates.add(e)
	s.mu.Unlock()
	s.listChanged("notifications/resources/list_changed", audienceOf(s, []watchedEntry{e}))
}

// RemoveResources removes resources and templates by URI or URI template.
func (s *Server) RemoveResources(uris ...string) {
	var removed []watchedEntry
	s.mu.Lock()
	for _, e := range s.resources.removeAll(uris) {
		removed = append(removed, e)
	}
	for _, e := range s.templates.removeAll(uris) {
		removed = append(removed, e)
	}
	s.mu.Unlock()
	if len(removed) > 0 {
		s.listChanged("notifications/resources/list_changed", audienceOf(s, removed))
	}
}

// findResourceLocked resolves the resource a resources/read names: a
// resource of that URI first, else the first template (in template order)
// that matches it, among those the caller may see: a hidden one reads as
// one that does not exist. A resource of that URI that the caller may not
// see hides the templates too: its requirements say who may read that
// URI, and a broader template must not serve it to anyone else. The
// caller holds s.mu.
func (s *Server) findResourceLocked(r *request) {
	uri := r.target.name
	if uri == "" {
		r.err = NewError(CodeInvalidParams, "resources/read needs a uri")
		return
	}
	ctx := r.context()
	if e, ok := s.resources.get(uri); ok {
		if r.peer.groups.admits(e.res.Groups) && s.allowsEntry(ctx, e.res.Scopes, e.res.Roles) && (e.ext == 0 || r.caps.ext.has(e.ext)) {
			r.target.read = e.handler
		} else {
			r.err = resourceNotFound(r)
		}
		return
	}
	for _, t := range s.templates.sorted {
		if !r.peer.groups.admits(t.tmpl.Groups) || !s.allowsEntry(ctx, t.tmpl.Scopes, t.tmpl.Roles) {
			continue
		}
		if m := t.compiled.Match(uri); m != nil {
			r.target.read, r.target.vars = t.handler, templateVars(m)
			return
		}
	}
	r.err = resourceNotFound(r)
}

// templateVars is the values of a template's variables in a URI it
// matched: a list variable's values joined by commas.
func templateVars(m uritemplate.Values) map[string]string {
	vars := make(map[string]string, len(m))
	for name, v := range m {
		if list := v.List(); list != nil {
			vars[name] = strings.Join(list, ",")
		} else {
			vars[name] = v.String()
		}
	}
	return vars
}

// resourceNotFound is the error of a resources/read of a URI that names
// nothing the caller may read: -32002 in legacy sessions, -32602 in the
// modern era.
func resourceNotFound(r *request) error {
	code := CodeResourceNotFound
	if r.modern {
		code = CodeInvalidParams
	}
	return &Error{Code: code, Message: "resource not found: " + r.target.name, Data: map[string]string{"uri": r.target.name}}
}

// readResource answers resources/read for the resource r names.
func (s *Server) readResource(ctx context.Context, r *request, b []byte) ([]byte, error) {
	if err := s.loadModernInput(ctx, r); err != nil {
		return b, err
	}
	uri := r.target.name
	contents, err := r.target.read(ctx, &ReadResourceRequest{URI: uri, Vars: r.target.vars})
	if r.inputPending() {
		return b, errInputPending
	}
	if errors.Is(err, ErrResourceNotFound) {
		return b, resourceNotFound(r)
	}
	if err != nil {
		return b, s.protocolError(ctx, "resource", uri, err)
	}
	b = appendKey(b, "contents")
	b = append(b, '[')
	for i := range contents {
		if i > 0 {
			b = append(b, ',')
		}
		b = contents[i].appendJSON(b)
	}
	b = append(b, ']')
	if r.modern {
		// A resource may change at any time (NotifyResourceUpdated) and
		// may be the caller's own: no caching, and never shared.
		b = appendKey(b, "ttlMs")
		b = append(b, '0')
		b = appendKey(b, "cacheScope")
		b = append(b, `"private"`...)
	}
	return b, nil
}
