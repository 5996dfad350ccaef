package entity

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
//
// Each caller is told only of what he may use, by the rule tools/call
// applies ([ferry.Server.Allows]: [ferry.ServerOptions.Visible], the
// tools' scopes and roles, a read-only server): an entity none of whose
// tools he may call is not listed, not completed, reads as unknown and is
// in no relation he is shown; one he may use in part lists only the tools
// he may call (readOnly when none of them writes), and the fields it
// filters, sorts and searches by only with its list tool. A tool shown to
// him for step-up ([ferry.ServerOptions.StepUp]) is described once he
// holds its scopes.
func (s *Set) AddResources(scheme string) {
	base := scheme + "://"
	s.srv.AddResource(ferry.Resource{URI: base + "entities", Name: "entities", MIMEType: "application/json",
		Description: "Every entity served as tools: its fields, key, tools and record schema.", Groups: s.groupsOf()},
		func(ctx context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			out := []entitySchema{}
			for _, u := range s.usable(ctx) {
				out = append(out, u.t.describeEntity(u.ops))
			}
			return jsonResource(req.URI, out)
		})
	s.srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: base + "entities/{name}", Name: "entity",
		MIMEType: "application/json", Description: "One entity: its fields, key, tools and record schema.",
		Complete: map[string]ferry.Completer{"name": s.completeName}, Groups: s.groupsOf()},
		func(ctx context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			name := req.Vars["name"]
			for _, u := range s.usable(ctx) {
				if u.t.e.Name == name {
					return jsonResource(req.URI, u.t.describeEntity(u.ops))
				}
			}
			return nil, fmt.Errorf("%w: no entity %q", ferry.ErrResourceNotFound, clip(name, 64))
		})
	s.srv.AddResource(ferry.Resource{URI: base + "relationships", Name: "relationships", MIMEType: "application/json",
		Description: "The relations between entities: which field refers to which entity.", Groups: s.groupsOf()},
		func(ctx context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			usable := s.usable(ctx)
			tables := make([]*table, len(usable))
			for i, u := range usable {
				tables[i] = u.t
			}
			return jsonResource(req.URI, relationships(tables, s.snapshot()))
		})
}

// Relationships lists the relations between the Set's entities, in the
// order the entities were added, whoever may use them (the
// <scheme>://relationships resource lists those of the entities its
// caller may use).
func (s *Set) Relationships() []Relationship {
	tables := s.snapshot()
	return relationships(tables, tables)
}

// relationships lists the relations from the entities of from, in their
// order, to entities of from or to none of all (the Set's): a relation to
// an entity of the Set not in from is left out.
func relationships(from, all []*table) []Relationship {
	out := []Relationship{}
	for _, t := range from {
		for _, f := range t.e.Fields {
			r := f.References
			if r == nil || (!slices.ContainsFunc(from, entityNamed(r.Entity)) && slices.ContainsFunc(all, entityNamed(r.Entity))) {
				continue
			}
			to := r.Field
			if to == "" {
				to = keyOf(from, r.Entity)
			}
			out = append(out, Relationship{From: t.e.Name, FromField: f.Name, To: r.Entity, ToField: to})
		}
	}
	return out
}

// entityNamed returns a test of a table's entity name.
func entityNamed(name string) func(*table) bool {
	return func(t *table) bool { return t.e.Name == name }
}

// usableTable is an entity with the tools a caller may call, in the
// order of [Op].
type usableTable struct {
	t   *table
	ops []Op
}

// usable returns the entities the caller of ctx may call at least one
// tool of, in the order they were added, as tools/call decides
// ([ferry.Server.Allows]).
func (s *Set) usable(ctx context.Context) []usableTable {
	tables := s.snapshot()
	if len(tables) == 0 {
		return nil
	}
	cat := s.srv.Catalog()
	var out []usableTable
	for _, t := range tables {
		var ops []Op
		for _, op := range allOps() {
			if !t.has(op) {
				continue
			}
			if info, ok := cat.Lookup(t.toolName(op)); ok && s.srv.Allows(ctx, info) {
				ops = append(ops, op)
			}
		}
		if len(ops) > 0 {
			out = append(out, usableTable{t: t, ops: ops})
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

func (s *Set) completeName(ctx context.Context, req *ferry.CompleteRequest) (*ferry.CompleteResult, error) {
	res := &ferry.CompleteResult{}
	for _, u := range s.usable(ctx) {
		if strings.HasPrefix(u.t.e.Name, req.Value) {
			res.Values = append(res.Values, u.t.e.Name)
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
