package serveconfig

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Source is one database of a config file's sources: mapping, served by
// one ferry serve beside the others:
//
//	sources:
//	  shop:
//	    db: shop.db                    # or db_env: SHOP_DB (the URL in the environment)
//	    queries_dir: queries/shop      # as -queries; relative to the file's directory
//	    statement_timeout: 5s          # as -statement-timeout
//	    max_conns: 5                   # as -db-max-conns
//	    only_tables: [products, orders]
//	    prefix: clash                  # clash (default), always or never
//	    tables:
//	      products: {hidden: [cost_price]}
//	  billing:
//	    db: postgres://billing@db:5432/billing?sslmode=disable
//	    password_env: BILLING_DB_PASSWORD
//
// A password is never written in the file: db: refuses a URL that holds
// one, and password_env names the variable that does.
type Source struct {
	// Name names the source: its tools' group, its schemas' URI scheme
	// (NAME://entities) and, where tool names clash, their prefix.
	Name Pos
	// DB is the database URL or SQLite path (a relative path is the
	// file's directory's), and DBEnv the environment variable holding
	// it; one of the two is given.
	DB, DBEnv string
	// PasswordEnv names the environment variable holding the password of
	// a URL that names a user but no password.
	PasswordEnv string
	// QueriesDir is the directory of the source's .sql files (as
	// -queries), relative to the file's directory; empty for none.
	QueriesDir string
	// StatementTimeout bounds each call's SQL on the engine, in place of
	// the default; zero for the default.
	StatementTimeout time.Duration
	// MaxConns bounds the source's connections; zero for the default.
	MaxConns int
	// OnlyTables and ExcludeTables choose the tables served, as -tables
	// and -exclude-tables do. OnlyTables given empty serves no table
	// (queries only).
	OnlyTables, ExcludeTables []string
	// NoTables says that only_tables was given empty: the source serves
	// its queries only.
	NoTables bool
	// Prefix says when the source's tool names get ToolPrefix: PrefixClash,
	// PrefixAlways or PrefixNever.
	Prefix string
	// ToolPrefix comes before a prefixed tool's name; the default is the
	// source's name and an underscore.
	ToolPrefix string
	// Config holds the source's tables: and queries: entries, as a
	// file's top-level ones for a single database.
	Config *Config
}

// The values of a source's prefix.
const (
	// PrefixClash prefixes the tools of a table or query whose names
	// another source's tools share (all of that table's tools, so they
	// stay named alike).
	PrefixClash = "clash"
	// PrefixAlways prefixes every tool of the source.
	PrefixAlways = "always"
	// PrefixNever never prefixes; a name another source shares stops
	// start-up.
	PrefixNever = "never"
)

// MaxSources bounds the sources of a file.
const MaxSources = 32

// sourceName is what a source's name may be: it is a URI scheme, a
// group name and a tool name's prefix.
var sourceName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// toolPrefix is what a tool_prefix may be: tool-name characters.
var toolPrefix = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,32}$`)

// sources reads the sources mapping.
func (p *parser) sources(c *Config, v *yaml.Node) error {
	dir := filepath.Dir(p.file)
	return p.mapping(v, "sources", nil, func(k, v *yaml.Node) error {
		if len(c.Sources) == MaxSources {
			return p.errorf(k, "more than %d sources", MaxSources)
		}
		if !sourceName.MatchString(k.Value) {
			return p.errorf(k, "source name %q: give 1 to 32 lowercase letters, digits and hyphens, led by a letter (it names the source's group, its schemas' NAME:// and its tools' prefix)", k.Value)
		}
		s, err := p.source(k, v, dir)
		if err != nil {
			return err
		}
		c.Sources = append(c.Sources, s)
		return nil
	})
}

func (p *parser) source(k, v *yaml.Node, dir string) (*Source, error) {
	s := &Source{Name: pos(k), Prefix: PrefixClash, ToolPrefix: k.Value + "_",
		Config: &Config{File: p.file, Tables: map[string]*Table{}}}
	what := "source " + k.Value
	var onlyGiven bool
	err := p.mapping(v, what, map[string]func(k, v *yaml.Node) error{
		"db": func(k, v *yaml.Node) (err error) {
			if s.DB, err = p.text(k, v, what); err != nil {
				return err
			}
			if u, err := url.Parse(s.DB); err == nil {
				_, inUser := u.User.Password()
				if inUser || u.Query().Has("password") {
					return p.errorf(v, "%s: db: the URL holds a password; a config file holds none: name the variable holding it with password_env: (or the whole URL's with db_env:)", what)
				}
			}
			s.DB = localPath(dir, s.DB)
			return nil
		},
		"db_env":       func(k, v *yaml.Node) (err error) { s.DBEnv, err = p.envName(k, v, what); return err },
		"password_env": func(k, v *yaml.Node) (err error) { s.PasswordEnv, err = p.envName(k, v, what); return err },
		"queries_dir": func(k, v *yaml.Node) (err error) {
			if s.QueriesDir, err = p.text(k, v, what); err == nil && !filepath.IsAbs(s.QueriesDir) {
				s.QueriesDir = filepath.Join(dir, s.QueriesDir)
			}
			return err
		},
		"statement_timeout": func(k, v *yaml.Node) (err error) { s.StatementTimeout, err = p.duration(k, v, what); return err },
		"max_conns": func(k, v *yaml.Node) error {
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || n < 1 || n > 1000 {
				return p.errorf(v, "%s: max_conns must be a whole number from 1 to 1000", what)
			}
			s.MaxConns = n
			return nil
		},
		"only_tables": func(k, v *yaml.Node) error {
			l, err := p.list(k, v, what)
			s.OnlyTables, onlyGiven = values(l), true
			return err
		},
		"exclude_tables": func(k, v *yaml.Node) error {
			l, err := p.list(k, v, what)
			s.ExcludeTables = values(l)
			return err
		},
		"prefix": func(k, v *yaml.Node) error {
			switch v.Value {
			case PrefixClash, PrefixAlways, PrefixNever:
				if v.Kind == yaml.ScalarNode {
					s.Prefix = v.Value
					return nil
				}
			}
			return p.errorf(v, "%s: prefix must be clash (the default: prefix a table's or query's tools where another source has a tool of that name), always or never", what)
		},
		"tool_prefix": func(k, v *yaml.Node) error {
			if v.Kind != yaml.ScalarNode || !toolPrefix.MatchString(v.Value) {
				return p.errorf(v, "%s: tool_prefix must be 1 to 32 letters, digits, _, - and . (a tool name's characters)", what)
			}
			s.ToolPrefix = v.Value
			return nil
		},
		"tables": func(_, v *yaml.Node) error { return p.tables(s.Config, v) },
		"queries": func(_, v *yaml.Node) (err error) {
			s.Config.Queries, err = p.queries(v)
			return err
		},
	}, nil)
	if err != nil {
		return nil, err
	}
	s.NoTables = onlyGiven && len(s.OnlyTables) == 0
	switch {
	case s.DB == "" && s.DBEnv == "":
		return nil, p.errorf(k, "%s: give db: (a SQLite path or a URL) or db_env: (the variable holding the URL)", what)
	case s.DB != "" && s.DBEnv != "":
		return nil, p.errorf(k, "%s: db: and db_env: exclude each other; give one", what)
	case s.NoTables && s.QueriesDir == "":
		return nil, p.errorf(k, "%s: only_tables: [] serves no table: give queries_dir: too, or name tables", what)
	case len(s.Config.Queries) > 0 && s.QueriesDir == "":
		return nil, p.errorf(k, "%s: queries: names queries, and queries_dir: is not given", what)
	}
	return s, nil
}

// localPath makes a relative SQLite path (not a URL) relative to dir.
func localPath(dir, db string) string {
	if strings.Contains(db, "://") || strings.HasPrefix(db, "file:") || filepath.IsAbs(db) {
		return db
	}
	return filepath.Join(dir, db)
}

// envVar is what an environment variable's name may be.
var envVar = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// envName reads the name of an environment variable.
func (p *parser) envName(k, v *yaml.Node, what string) (string, error) {
	if v.Kind != yaml.ScalarNode || !envVar.MatchString(v.Value) {
		return "", p.errorf(v, "%s: %s must name an environment variable (letters, digits and _)", what, k.Value)
	}
	return v.Value, nil
}

func values(l []Pos) []string {
	out := make([]string, len(l))
	for i, p := range l {
		out[i] = p.Value
	}
	return out
}
