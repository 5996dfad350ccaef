package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/cmd/ferry/internal/serveconfig"
	"github.com/ferry-mcp/ferry/entity"
)

// source is one database ferry serve serves: the one of -db, or one of
// the config file's sources:.
type source struct {
	// name is the source's name in the config file; "" for -db's.
	name string
	// conf is the source's entry in the config file; nil for -db's.
	conf *serveconfig.Source
	// tablesConf holds its tables: and queries: entries, or nil.
	tablesConf      *serveconfig.Config
	tables, exclude []string
	noTables        bool   // serves its queries only
	queries         string // the directory of its .sql files, or ""
	timeout         time.Duration
	maxConns        int
	prefix          string // serveconfig.PrefixClash, PrefixAlways or PrefixNever
	toolPrefix      string
	scheme          string   // its schemas' URI scheme
	groups          []string // its entries' groups; nil when it is the only source
	db              *openedDB
	units           []*unit // its tables and queries, planned
	served          servedTables
}

// unit is a table or a query of a source, to be served.
type unit struct {
	e *entity.Entity  // a table's entity, or nil
	o *entity.Options // and its options
	q *entity.Query   // or a query
	// names are its tools' names, unprefixed (known only with several
	// sources); prefixed says that they get the source's tool_prefix.
	names    []string
	prefixed bool
}

// what names the unit in a sentence.
func (u *unit) what() string {
	if u.q != nil {
		return fmt.Sprintf("query %s (%s:%d)", u.q.Name, u.q.File, u.q.Line)
	}
	return "table " + tableName(u.e.Table)
}

// where leads a sentence about the source: "source NAME: ", or nothing
// for -db's database.
func (src *source) where() string {
	if src.name == "" {
		return ""
	}
	return "source " + src.name + ": "
}

// tablesFlag, tablesFlags and queriesFlag name the settings that choose
// the source's tables and queries, for a sentence.
func (src *source) tablesFlag() string {
	if src.conf != nil {
		return "only_tables"
	}
	return "-tables"
}

func (src *source) tablesFlags() string {
	if src.conf != nil {
		return "only_tables/exclude_tables"
	}
	return "-tables/-exclude-tables"
}

func (src *source) queriesFlag() string {
	if src.conf != nil {
		return "queries_dir"
	}
	return "-queries"
}

// sourceFlags are the flags of one database, which a config file's
// sources: replaces with keys of each source.
var sourceFlags = []struct{ flag, key string }{
	{"db", "db"}, {"db-env", "db_env"}, {"tables", "only_tables"}, {"exclude-tables", "exclude_tables"},
	{"queries", "queries_dir"}, {"statement-timeout", "statement_timeout"}, {"db-max-conns", "max_conns"},
}

// sources are the databases to serve: the config file's sources:, or
// else the one the flags name.
func (s *server) sources(conf *serveconfig.Config) ([]*source, error) {
	if conf == nil || len(conf.Sources) == 0 {
		if conf != nil && len(conf.Queries) > 0 && s.cfg.queries == "" {
			return nil, fmt.Errorf("%s: queries: names queries, and -queries DIR is not given", conf.File)
		}
		return []*source{{tablesConf: conf, tables: s.cfg.tables, exclude: s.cfg.exclude, noTables: s.cfg.noTables,
			queries: s.cfg.queries, timeout: s.cfg.timeout, maxConns: s.cfg.maxConns, scheme: resourceScheme}}, nil
	}
	for _, f := range sourceFlags {
		if s.cfg.given[f.flag] {
			return nil, serveUsage(fmt.Sprintf("-%s does not go with the sources: of %s: give each source's %s there", f.flag, conf.File, f.key))
		}
	}
	out := make([]*source, len(conf.Sources))
	for i, c := range conf.Sources {
		src := &source{name: c.Name.Value, conf: c, tablesConf: c.Config, tables: c.OnlyTables, exclude: c.ExcludeTables,
			noTables: c.NoTables, queries: c.QueriesDir, timeout: c.StatementTimeout, maxConns: c.MaxConns,
			prefix: c.Prefix, toolPrefix: c.ToolPrefix, scheme: resourceScheme}
		if len(conf.Sources) > 1 {
			src.scheme, src.groups = c.Name.Value, []string{c.Name.Value}
		}
		out[i] = src
	}
	return out, nil
}

// openSources opens the database of each source, in order; the first
// that cannot be opened stops start-up, naming its source, and the ones
// opened before are closed.
func (s *server) openSources(ctx context.Context, srcs []*source) error {
	for i, src := range srcs {
		db, err := s.openDatabase(ctx, src)
		if err != nil {
			closeSources(srcs[:i])
			return err
		}
		src.db = db
	}
	return nil
}

// closeSources closes the databases of srcs.
func closeSources(srcs []*source) {
	for _, src := range srcs {
		if src.db != nil {
			_ = src.db.db.Close()
		}
	}
}

// addSources plans the tables and queries of every source, names their
// tools (with several sources, a table's or query's tools get its
// source's tool_prefix where another source has a tool of the same name,
// or always, or never, as its prefix: says), and registers them on srv,
// each source in a Set of its own with its statement timeout and, with
// several sources, its group.
func (s *server) addSources(ctx context.Context, srv *ferry.Server, srcs []*source) error {
	for _, src := range srcs {
		if !src.noTables {
			if err := s.planTables(ctx, src); err != nil {
				return err
			}
		}
		if src.queries != "" {
			if err := s.planQueries(ctx, src); err != nil {
				return err
			}
		}
	}
	if len(srcs) > 1 {
		for _, src := range srcs {
			if err := s.toolNames(src); err != nil {
				return err
			}
		}
		if err := prefixTools(srcs); err != nil {
			return err
		}
	}
	for _, src := range srcs {
		if err := s.addSource(ctx, srv, src); err != nil {
			return err
		}
	}
	return nil
}

// toolNames fills in the names of the tools of each of src's units, as
// its Set would name them: its tables' are read from a Set on a server
// of its own.
func (s *server) toolNames(src *source) error {
	scratch := ferry.NewServer("names", "0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	set, err := entity.NewSet(scratch, src.db.db, &entity.SetOptions{Engine: src.db.engine, ReadOnly: !s.cfg.writes})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, u := range src.units {
		if u.q != nil {
			u.names = []string{u.q.Name}
			continue
		}
		if _, err := set.Add(u.e, u.o); err != nil {
			return fmt.Errorf("%stable %s: %s", src.where(), tableName(u.e.Table), joinLines(err))
		}
		for _, t := range scratch.Catalog().Tools() {
			if !seen[t.Name] {
				seen[t.Name] = true
				u.names = append(u.names, t.Name)
			}
		}
	}
	return nil
}

// prefixTools decides which units get their source's tool_prefix: every
// one of a source whose prefix is always; under clash (the default), a
// unit one of whose tool names another source's unit has. A name that
// two sources keep, neither prefixing it (both never), stops start-up
// naming both, as does a name that prefixing made twice.
func prefixTools(srcs []*source) error {
	type owner struct {
		src *source
		u   *unit
	}
	owners := map[string][]owner{}
	for _, src := range srcs {
		for _, u := range src.units {
			for _, n := range u.names {
				owners[n] = append(owners[n], owner{src, u})
			}
		}
	}
	for _, src := range srcs {
		for _, u := range src.units {
			if src.prefix == serveconfig.PrefixAlways {
				u.prefixed = true
				continue
			}
			for _, n := range u.names {
				for _, o := range owners[n] {
					if o.src != src && src.prefix == serveconfig.PrefixClash {
						u.prefixed = true
					}
				}
			}
		}
	}
	final := map[string]owner{}
	for _, src := range srcs {
		for _, u := range src.units {
			for _, n := range u.names {
				if u.prefixed {
					n = src.toolPrefix + n
				}
				if o, ok := final[n]; ok {
					return fmt.Errorf("tool %s: both %s of source %s and %s of source %s would have it; give one of them prefix: clash or always (or another tool_prefix)",
						n, o.u.what(), o.src.name, u.what(), src.name)
				}
				final[n] = owner{src, u}
			}
		}
	}
	for _, src := range srcs {
		for _, u := range src.units {
			switch {
			case !u.prefixed:
			case u.q != nil:
				u.q.Name = src.toolPrefix + u.q.Name
			default:
				u.o.ToolPrefix = src.toolPrefix
			}
		}
	}
	return nil
}

// addSource registers the tools of src's units, and its schemas, on srv.
func (s *server) addSource(ctx context.Context, srv *ferry.Server, src *source) error {
	set, err := entity.NewSet(srv, src.db.db, &entity.SetOptions{Engine: src.db.engine, ReadOnly: !s.cfg.writes,
		Timeout: src.timeout, Groups: src.groups})
	if err != nil {
		return err
	}
	if src.groups != nil {
		srv.DescribeGroup(src.name, fmt.Sprintf("The tables and queries of the %s database %s (source %s).", src.db.engine, src.db.name, src.name))
	}
	out := &src.served
	stop := func() {}
	if src.queries != "" {
		stop = s.progress(fmt.Sprintf("%spreparing the queries of %s…", src.where(), src.queries), progressAfter)
	}
	defer stop()
	for _, u := range src.units {
		if u.q != nil {
			if err := set.AddQuery(ctx, u.q); err != nil {
				return fmt.Errorf("%s%w", src.where(), err)
			}
			out.queries = append(out.queries, u.q.Name)
			continue
		}
		se, err := set.Add(u.e, u.o)
		if err != nil {
			return fmt.Errorf("%stable %s: %s", src.where(), tableName(u.e.Table), joinLines(err))
		}
		out.tables = append(out.tables, u.e.Table)
		out.added = append(out.added, se)
		out.notes = append(out.notes, tableNotes(se, s.cfg.writes)...)
		out.secrets = append(out.secrets, secretColumns(u.e)...)
	}
	if !src.noTables {
		set.AddResources(src.scheme)
	}
	return nil
}

// sourceNames lists the sources' names, or the one database's name.
func sourceNames(srcs []*source) string {
	if len(srcs) == 1 {
		return srcs[0].db.name
	}
	names := make([]string, len(srcs))
	for i, src := range srcs {
		names[i] = src.name
	}
	return strings.Join(names, ", ")
}

// servedTools sums what srcs serve: whether any serves tables and any
// queries.
func servedTools(srcs []*source) (tables, queries bool) {
	return slices.ContainsFunc(srcs, func(s *source) bool { return !s.noTables }),
		slices.ContainsFunc(srcs, func(s *source) bool { return s.queries != "" })
}
