package serveconfig

import (
	"go.yaml.in/yaml/v3"
)

// Callers names who may use a tool: a caller needs every one of Scopes
// and, if Roles is not empty, any one of Roles (the JWT's scope and roles
// claims, or an API key's). Empty lists let every caller.
type Callers struct {
	Scopes, Roles []string
}

// Access is a table's access entry:
//
//	access:
//	  read: {scopes: [shop.read]}
//	  write: {scopes: [shop.write], roles: [staff]}
//	  delete: {roles: [admin]}     # default: as write
type Access struct {
	Read, Write, Delete Callers
}

// QueryAccess is who may call one -queries tool:
//
//	queries:
//	  best_sellers: {scopes: [reports]}
type QueryAccess struct {
	Name Pos
	Callers
}

// access reads a table's access mapping.
func (p *parser) access(v *yaml.Node, what string) (*Access, error) {
	a := &Access{}
	what += " access"
	err := p.mapping(v, what, map[string]func(k, v *yaml.Node) error{
		"read":   func(k, v *yaml.Node) (err error) { a.Read, err = p.callers(v, what+" "+k.Value); return err },
		"write":  func(k, v *yaml.Node) (err error) { a.Write, err = p.callers(v, what+" "+k.Value); return err },
		"delete": func(k, v *yaml.Node) (err error) { a.Delete, err = p.callers(v, what+" "+k.Value); return err },
	}, nil)
	return a, err
}

// queries reads the queries mapping.
func (p *parser) queries(v *yaml.Node) (map[string]*QueryAccess, error) {
	out := map[string]*QueryAccess{}
	err := p.mapping(v, "queries", nil, func(k, v *yaml.Node) error {
		c, err := p.callers(v, "query "+k.Value)
		out[k.Value] = &QueryAccess{Name: pos(k), Callers: c}
		return err
	})
	return out, err
}

// callers reads {scopes: [...], roles: [...]}.
func (p *parser) callers(v *yaml.Node, what string) (Callers, error) {
	var c Callers
	names := func(k, v *yaml.Node) ([]string, error) {
		if v.Kind != yaml.SequenceNode {
			return nil, p.errorf(v, "%s: %s must be a list of names ([a, b])", what, k.Value)
		}
		out := make([]string, 0, len(v.Content))
		for _, n := range v.Content {
			if err := p.plain(n); err != nil {
				return nil, err
			}
			if n.Kind != yaml.ScalarNode || n.Value == "" {
				return nil, p.errorf(n, "%s: %s must list names", what, k.Value)
			}
			out = append(out, n.Value)
		}
		return out, nil
	}
	err := p.mapping(v, what, map[string]func(k, v *yaml.Node) error{
		"scopes": func(k, v *yaml.Node) (err error) { c.Scopes, err = names(k, v); return err },
		"roles":  func(k, v *yaml.Node) (err error) { c.Roles, err = names(k, v); return err },
	}, nil)
	return c, err
}
