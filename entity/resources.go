package entity

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// Relationship is a relation between two entities, as the relationships
// resource lists it: From's field holds To's field (usually its key).
type Relationship struct {
	From      string `json:"from"`
	FromField string `json:"fromField"`
	To        string `json:"to"`
	ToField   string `json:"toField"`
}

// AddResources serves the entities' schemas as resources of the server:
// <scheme>://entities lists every entity with its record schema, fields
// and tools; the template <scheme>://entities/{name} serves one (its
// variable completes entity names); <scheme>://relationships lists the
// relations between them. They reflect the entities added when read.
func (s *Set) AddResources(scheme string) {
	base := scheme + "://"
	s.srv.AddResource(ferry.Resource{URI: base + "entities", Name: "entities", MIMEType: "application/json",
		Description: "Every entity served as tools: its fields, key, tools and record schema."},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			var out []entitySchema
			for _, t := range s.snapshot() {
				out = append(out, t.describeEntity())
			}
			return jsonResource(req.URI, out)
		})
	s.srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: base + "entities/{name}", Name: "entity",
		MIMEType: "application/json", Description: "One entity: its fields, key, tools and record schema.",
		Complete: map[string]ferry.Completer{"name": s.completeName}},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			name := req.Vars["name"]
			for _, t := range s.snapshot() {
				if t.e.Name == name {
					return jsonResource(req.URI, t.describeEntity())
				}
			}
			return nil, fmt.Errorf("%w: no entity %q", ferry.ErrResourceNotFound, clip(name, 64))
		})
	s.srv.AddResource(ferry.Resource{URI: base + "relationships", Name: "relationships", MIMEType: "application/json",
		Description: "The relations between entities: which field refers to which entity."},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return jsonResource(req.URI, s.Relationships())
		})
}

// Relationships lists the relations between the Set's entities, in the
// order the entities were added.
func (s *Set) Relationships() []Relationship {
	out := []Relationship{}
	tables := s.snapshot()
	for _, t := range tables {
		for _, f := range t.e.Fields {
			if r := f.References; r != nil {
				to := r.Field
				if to == "" {
					to = keyOf(tables, r.Entity)
				}
				out = append(out, Relationship{From: t.e.Name, FromField: f.Name, To: r.Entity, ToField: to})
			}
		}
	}
	return out
}

// keyOf is the key of the entity named name among tables, or "id" when
// it is not among them or has no key.
func keyOf(tables []*table, name string) string {
	for _, t := range tables {
		if t.e.Name == name && t.e.Key != "" {
			return t.e.Key
		}
	}
	return "id"
}

func (s *Set) completeName(_ context.Context, req *ferry.CompleteRequest) (*ferry.CompleteResult, error) {
	res := &ferry.CompleteResult{}
	for _, t := range s.snapshot() {
		if strings.HasPrefix(t.e.Name, req.Value) {
			res.Values = append(res.Values, t.e.Name)
		}
	}
	res.Total = len(res.Values)
	return res, nil
}

func (s *Set) snapshot() []*table {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]*table(nil), s.tables...)
}

func jsonResource(uri string, v any) ([]ferry.ResourceContents, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return []ferry.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}, nil
}
