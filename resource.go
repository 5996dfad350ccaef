package ferry

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
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
}

// ResourceTemplate describes a family of resources whose URIs match an
// RFC 6570 template. Ferry matches simple {name} expressions, each standing
// for one path segment.
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
}

// ReadResourceRequest is a resources/read as a resource handler sees it.
type ReadResourceRequest struct {
	URI string
	// Vars holds the template's variables, for a template's handler.
	Vars map[string]string
}

// ResourceHandler reads a resource. Returning an error that wraps
// [ErrResourceNotFound] tells the client the URI names nothing.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) ([]ResourceContents, error)

// ErrResourceNotFound reports a URI that names no resource.
var ErrResourceNotFound = fmt.Errorf("ferry: resource not found")

type resourceEntry struct {
	res     Resource
	handler ResourceHandler
	json    []byte
}

func (e *resourceEntry) key() string  { return e.res.URI }
func (e *resourceEntry) wire() []byte { return e.json }

type templateEntry struct {
	tmpl    ResourceTemplate
	handler ResourceHandler
	match   *regexp.Regexp
	vars    []string
	json    []byte
}

func (e *templateEntry) key() string  { return e.tmpl.URITemplate }
func (e *templateEntry) wire() []byte { return e.json }

// AddResource registers a resource, replacing any of the same URI.
func (s *Server) AddResource(r Resource, h ResourceHandler) {
	if r.URI == "" || r.Name == "" || h == nil {
		panic("ferry: AddResource needs a URI, a name and a handler")
	}
	data, _ := json.Marshal(r)
	s.mu.Lock()
	s.resources.add(&resourceEntry{res: r, handler: h, json: data})
	s.mu.Unlock()
	s.listChanged("notifications/resources/list_changed")
}

// AddResourceTemplate registers a resource template.
func (s *Server) AddResourceTemplate(t ResourceTemplate, h ResourceHandler) {
	if t.URITemplate == "" || t.Name == "" || h == nil {
		panic("ferry: AddResourceTemplate needs a URI template, a name and a handler")
	}
	re, vars, err := compileTemplate(t.URITemplate)
	if err != nil {
		panic(fmt.Sprintf("ferry: resource template %q: %v", t.URITemplate, err))
	}
	data, _ := json.Marshal(t)
	s.mu.Lock()
	s.templates.add(&templateEntry{tmpl: t, handler: h, match: re, vars: vars, json: data})
	s.mu.Unlock()
	s.listChanged("notifications/resources/list_changed")
}

// RemoveResources removes resources and templates by URI or URI template.
func (s *Server) RemoveResources(uris ...string) {
	removed := false
	s.mu.Lock()
	for _, u := range uris {
		removed = s.resources.remove(u) || removed
		removed = s.templates.remove(u) || removed
	}
	s.mu.Unlock()
	if removed {
		s.listChanged("notifications/resources/list_changed")
	}
}

var templateVar = regexp.MustCompile(`\{([A-Za-z0-9_.]+)\}`)

func compileTemplate(t string) (*regexp.Regexp, []string, error) {
	var sb strings.Builder
	var vars []string
	sb.WriteByte('^')
	last := 0
	for _, m := range templateVar.FindAllStringSubmatchIndex(t, -1) {
		sb.WriteString(regexp.QuoteMeta(t[last:m[0]]))
		sb.WriteString(`([^/?#]+)`)
		vars = append(vars, t[m[2]:m[3]])
		last = m[1]
	}
	rest := t[last:]
	if strings.ContainsAny(rest, "{}") {
		return nil, nil, fmt.Errorf("only simple {name} expressions are supported")
	}
	sb.WriteString(regexp.QuoteMeta(rest))
	sb.WriteByte('$')
	re, err := regexp.Compile(sb.String())
	return re, vars, err
}

// findResource returns the handler for uri and the template variables.
func (s *Server) findResource(uri string) (ResourceHandler, map[string]string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e, ok := s.resources.get(uri); ok {
		return e.handler, nil, true
	}
	for _, t := range s.templates.sorted {
		if m := t.match.FindStringSubmatch(uri); m != nil {
			vars := make(map[string]string, len(t.vars))
			for i, v := range t.vars {
				vars[v] = m[i+1]
			}
			return t.handler, vars, true
		}
	}
	return nil, nil, false
}
