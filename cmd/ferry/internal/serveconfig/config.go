// Package serveconfig reads the YAML file that tells ferry serve what
// introspection cannot: a table's description, its natural key, the
// columns to hide, and which fields its list tool may filter, sort and
// search by, and which fields its aggregate tool may sum, average, and
// take the least and greatest of.
//
//	tables:
//	  products:
//	    description: Products the shop sells, with their price and stock.
//	    natural_key: sku
//	    hidden: [cost_price, supplier_notes]
//	    filter: [name, price, category_id]   # only these; default: every field
//	    sort: [name, price]
//	    search: [name, description]          # text fields; default: a full-text index's, if any
//	    aggregate: [price, stock]            # serves aggregate_products over these; default: no such tool
//	    timeout: 30s                         # this table's calls; default: -statement-timeout
//	    fields:
//	      price: The unit price in euros, tax included.
//	    access:                               # who may call the tools (see Access)
//	      read: {scopes: [shop.read]}
//	      write: {roles: [staff]}
//	queries:                                  # who may call -queries tools
//	  best_sellers: {scopes: [reports]}
//
// A file may instead name several databases under sources: (see
// [Source]), each with tables: and queries: of its own.
//
// Decoding is strict: an unknown key, a repeated key, a value of the wrong
// kind, an alias or a second document is an error naming its line and
// column. [Table.Apply] then refuses names the database does not have.
package serveconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxBytes bounds a config file.
const MaxBytes = 1 << 20

// Config is a parsed config file.
type Config struct {
	// File names the file in errors.
	File string
	// Tables holds each table's settings by its name in the database.
	Tables map[string]*Table
	// Order lists the table names in the order the file gives them.
	Order []string
	// Queries holds who may call each -queries tool, by its name.
	Queries map[string]*QueryAccess
	// Sources are the databases of the sources: mapping, in the file's
	// order; with them, Tables and Queries are empty (each source has
	// its own).
	Sources []*Source
}

// Table is one table's settings. A nil list was not given (the default
// applies); an empty one was given empty.
type Table struct {
	// Name is the table's name, where the file gives it.
	Name Pos
	// Description replaces the introspected description, if not empty.
	Description string
	// NaturalKey names a unique column get, update and delete also
	// accept, if set.
	NaturalKey *Pos
	// Hidden lists columns never read, filtered, searched or shown.
	Hidden []Pos
	// Filter, Sort and Search list the only fields filter, orderBy and
	// search may use.
	Filter, Sort, Search []Pos
	// Aggregate lists the fields the aggregate tool may sum, average and
	// take the least and greatest of; given, the table gets
	// aggregate_<plural>, which also counts and groups by the filter
	// fields.
	Aggregate []Pos
	// Fields holds field descriptions by column name.
	Fields map[string]FieldDoc
	// Access says who may read, write and delete the table's records;
	// nil lets every caller.
	Access *Access
	// Timeout, if not zero, bounds the table's calls in place of
	// -statement-timeout, with the tools' deadline a little beyond it
	// (entity.Options.Timeout).
	Timeout time.Duration
	file    string
}

// FieldDoc is a field's description and where the file gives it.
type FieldDoc struct {
	Name        Pos
	Description string
}

// Pos is a value of the file and where it is.
type Pos struct {
	Value        string
	Line, Column int
}

// Load reads and parses the config file at path.
func Load(path string) (*Config, error) {
	f, err := os.Open(path) //nolint:gosec // the file the user named with -config
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("config %s: larger than %d bytes", path, MaxBytes)
	}
	return Parse(path, data)
}

// Parse parses a config file's contents; file names it in errors.
func Parse(file string, data []byte) (*Config, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: the file is empty; it needs a tables: mapping", file)
		}
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s:%d: a second YAML document; give one", file, extra.Line)
	}
	p := &parser{file: file}
	c := &Config{File: file, Tables: map[string]*Table{}}
	root := doc.Content[0]
	err := p.mapping(root, "the file", map[string]func(k, v *yaml.Node) error{
		"tables":  func(_, v *yaml.Node) error { return p.tables(c, v) },
		"queries": func(_, v *yaml.Node) (err error) { c.Queries, err = p.queries(v); return err },
		"sources": func(k, v *yaml.Node) error {
			if err := p.sources(c, v); err != nil {
				return err
			}
			if len(c.Sources) == 0 {
				return p.errorf(k, "sources: names no database")
			}
			return nil
		},
	}, nil)
	if err != nil {
		return nil, err
	}
	if len(c.Sources) > 0 && (len(c.Order) > 0 || c.Queries != nil) {
		return nil, fmt.Errorf("%s: with sources:, give tables: and queries: inside each source, under its name", file)
	}
	return c, nil
}

// tables reads a tables mapping into c.
func (p *parser) tables(c *Config, v *yaml.Node) error {
	return p.mapping(v, "tables", nil, func(k, v *yaml.Node) error {
		t, err := p.table(k, v)
		if err != nil {
			return err
		}
		c.Tables[t.Name.Value] = t
		c.Order = append(c.Order, t.Name.Value)
		return nil
	})
}

type parser struct{ file string }

func (p *parser) errorf(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%s:%d:%d: %s", p.file, n.Line, n.Column, fmt.Sprintf(format, args...))
}

// mapping walks the mapping n: each key known is given to its function,
// any other to other, or is an error if other is nil.
func (p *parser) mapping(n *yaml.Node, what string, known map[string]func(k, v *yaml.Node) error, other func(k, v *yaml.Node) error) error {
	if err := p.plain(n); err != nil {
		return err
	}
	if n.Kind != yaml.MappingNode {
		return p.errorf(n, "%s must be a mapping (key: value lines)", what)
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := p.plain(k); err != nil {
			return err
		}
		if err := p.plain(v); err != nil {
			return err
		}
		if k.Kind != yaml.ScalarNode {
			return p.errorf(k, "a key of %s must be a plain name", what)
		}
		if line, ok := seen[k.Value]; ok {
			return p.errorf(k, "%q is given twice in %s (first at line %d)", k.Value, what, line)
		}
		seen[k.Value] = k.Line
		f, ok := known[k.Value]
		switch {
		case ok:
		case other != nil:
			f = other
		default:
			return p.errorf(k, "unknown key %q in %s (known: %s)", k.Value, what, keys(known))
		}
		if err := f(k, v); err != nil {
			return err
		}
	}
	return nil
}

// plain refuses aliases, anchors and tags other than the plain ones, which
// a config never needs and which would let a small file expand.
func (p *parser) plain(n *yaml.Node) error {
	switch {
	case n.Kind == yaml.AliasNode || n.Anchor != "":
		return p.errorf(n, "anchors and aliases are not allowed")
	case n.Kind == yaml.ScalarNode && n.Tag == "!!merge":
		return p.errorf(n, "merge keys (<<) are not allowed")
	}
	return nil
}

func keys(m map[string]func(k, v *yaml.Node) error) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ", ")
}

func (p *parser) table(k, v *yaml.Node) (*Table, error) {
	if k.Value == "" {
		return nil, p.errorf(k, "an empty table name")
	}
	t := &Table{Name: pos(k), file: p.file}
	what := "table " + k.Value
	err := p.mapping(v, what, map[string]func(k, v *yaml.Node) error{
		"description": func(k, v *yaml.Node) error {
			s, err := p.text(k, v, what)
			t.Description = s
			return err
		},
		"natural_key": func(k, v *yaml.Node) error {
			s, err := p.text(k, v, what)
			t.NaturalKey = &Pos{Value: s, Line: v.Line, Column: v.Column}
			return err
		},
		"hidden": func(k, v *yaml.Node) (err error) { t.Hidden, err = p.list(k, v, what); return err },
		"filter": func(k, v *yaml.Node) (err error) { t.Filter, err = p.list(k, v, what); return err },
		"sort":   func(k, v *yaml.Node) (err error) { t.Sort, err = p.list(k, v, what); return err },
		"search": func(k, v *yaml.Node) (err error) { t.Search, err = p.list(k, v, what); return err },
		"access": func(_, v *yaml.Node) (err error) { t.Access, err = p.access(v, what); return err },
		"aggregate": func(k, v *yaml.Node) (err error) {
			t.Aggregate, err = p.list(k, v, what)
			return err
		},
		"timeout": func(k, v *yaml.Node) (err error) { t.Timeout, err = p.duration(k, v, what); return err },
		"fields": func(_, v *yaml.Node) error {
			t.Fields = map[string]FieldDoc{}
			return p.mapping(v, what+" fields", nil, func(k, v *yaml.Node) error {
				s, err := p.text(k, v, what+" fields")
				t.Fields[k.Value] = FieldDoc{Name: pos(k), Description: s}
				return err
			})
		},
	}, nil)
	return t, err
}

// text reads a non-empty string scalar.
func (p *parser) text(k, v *yaml.Node, what string) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return "", p.errorf(v, "%s: %s must be text", what, k.Value)
	}
	if strings.TrimSpace(v.Value) == "" {
		return "", p.errorf(v, "%s: %s is empty", what, k.Value)
	}
	return v.Value, nil
}

// MaxTimeout bounds a table's timeout: a call that needs longer is better
// served by a narrower one.
const MaxTimeout = time.Hour

// duration reads a positive Go duration ("30s", "2m") of at most
// MaxTimeout.
func (p *parser) duration(k, v *yaml.Node, what string) (time.Duration, error) {
	if v.Kind != yaml.ScalarNode {
		return 0, p.errorf(v, "%s: %s must be a duration such as 30s or 2m", what, k.Value)
	}
	d, err := time.ParseDuration(v.Value)
	if err != nil || d <= 0 || d > MaxTimeout {
		return 0, p.errorf(v, "%s: %s %q must be a duration such as 30s or 2m, above 0 and at most %s", what, k.Value, v.Value, MaxTimeout)
	}
	return d, nil
}

// list reads a sequence of names; the empty sequence gives an empty,
// non-nil list.
func (p *parser) list(k, v *yaml.Node, what string) ([]Pos, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, p.errorf(v, "%s: %s must be a list of column names ([a, b])", what, k.Value)
	}
	out := make([]Pos, 0, len(v.Content))
	seen := make(map[string]bool, len(v.Content))
	for _, n := range v.Content {
		if err := p.plain(n); err != nil {
			return nil, err
		}
		if n.Kind != yaml.ScalarNode || n.Value == "" {
			return nil, p.errorf(n, "%s: %s must list column names", what, k.Value)
		}
		if seen[n.Value] {
			return nil, p.errorf(n, "%s: %s names %q twice", what, k.Value, n.Value)
		}
		seen[n.Value] = true
		out = append(out, pos(n))
	}
	return out, nil
}

func pos(n *yaml.Node) Pos { return Pos{Value: n.Value, Line: n.Line, Column: n.Column} }
