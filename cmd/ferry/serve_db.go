package main

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/dsn"
	"github.com/ferry-mcp/ferry/cmd/ferry/internal/likesearch"
	"github.com/ferry-mcp/ferry/cmd/ferry/internal/serveconfig"
	"github.com/ferry-mcp/ferry/entity"
)

// Environment variables ferry serve reads.
const (
	envDB         = "FERRY_DB"          // the database URL, when neither -db nor -db-env is given
	envDBPassword = "FERRY_DB_PASSWORD" //nolint:gosec // the variable's name, not a credential
)

// resourceScheme is the scheme of the entity schema resources
// (db://entities, db://entities/{name}, db://relationships).
const resourceScheme = "db"

// connectTimeout bounds the first ping of the database.
const connectTimeout = 10 * time.Second

// progressAfter is how long start-up runs quietly before saying what it
// is doing.
const progressAfter = time.Second

// openedDB is the database being served.
type openedDB struct {
	db      *sql.DB
	engine  entity.Engine
	display string // the URL, password redacted
	name    string // the database's name alone, for clients
	// maxConns bounds the connections to the database.
	maxConns int
	// connLimit warns that maxConns is above the server's limit, or is
	// empty.
	connLimit string
}

// openDatabase resolves the database URL of src, from the flags and the
// environment (-db's) or its config entry, opens it and checks that it
// answers.
func (s *server) openDatabase(ctx context.Context, src *source) (*openedDB, error) {
	raw, password, err := s.databaseURL(src)
	if err != nil {
		return nil, err
	}
	timeout, maxConns := src.timeout, src.maxConns
	// A SQLite statement waits for another connection's lock as long as
	// the call may run; the call's deadline ends the wait sooner.
	busy := timeout
	if busy == 0 {
		busy = entity.DefaultTimeout
	}
	d, err := dsn.Parse(raw, &dsn.Options{Password: password, Writes: s.cfg.writes, MaxConns: maxConns, BusyTimeout: busy})
	if err != nil {
		if src.name != "" {
			return nil, serveUsage(src.where() + "db: " + err.Error())
		}
		return nil, serveUsage("-db: " + err.Error())
	}
	db, err := d.Open()
	if err != nil {
		return nil, fmt.Errorf("%scannot open %s: %w", src.where(), d.Display, err)
	}
	pctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		_ = db.Close()
		if d.Engine == entity.SQLite {
			return nil, fmt.Errorf("%scannot open %s: %s; check that it is a SQLite database file", src.where(), d.Display, joinLines(err))
		}
		return nil, fmt.Errorf("%scannot connect to %s: %s; check that the server runs and the URL's host, port, user, password and database", src.where(), d.Display, joinLines(err))
	}
	return &openedDB{db: db, engine: d.Engine, display: d.Display, name: d.Name,
		maxConns: d.MaxConns, connLimit: connLimitWarning(pctx, db, d)}, nil
}

// databaseURL is the URL of src's database and the password the
// environment gives it: -db, -db-env's variable or $FERRY_DB, with
// $FERRY_DB_PASSWORD; or a source's db or db_env, with password_env.
func (s *server) databaseURL(src *source) (raw, password string, err error) {
	if c := src.conf; c != nil {
		raw = c.DB
		if c.DBEnv != "" {
			if raw = s.env.getenv(c.DBEnv); raw == "" {
				return "", "", serveUsage(fmt.Sprintf("%sdb_env: $%s is empty or unset", src.where(), c.DBEnv))
			}
		}
		if c.PasswordEnv != "" {
			if password = s.env.getenv(c.PasswordEnv); password == "" {
				return "", "", serveUsage(fmt.Sprintf("%spassword_env: $%s is empty or unset", src.where(), c.PasswordEnv))
			}
		}
		return raw, password, nil
	}
	raw = s.cfg.db
	switch {
	case s.cfg.dbEnv != "":
		if raw = s.env.getenv(s.cfg.dbEnv); raw == "" {
			return "", "", serveUsage(fmt.Sprintf("-db-env %s: $%s is empty or unset", s.cfg.dbEnv, s.cfg.dbEnv))
		}
	case raw == "":
		if raw = s.env.getenv(envDB); raw == "" {
			return "", "", serveUsage("no database: give -db URL (a SQLite path, postgres://… or mysql://…) or set $" + envDB)
		}
	}
	return raw, s.env.getenv(envDBPassword), nil
}

// servedTables is what a source registered.
type servedTables struct {
	tables  []string         // table names, in entity order
	added   []*entity.Entity // the tables' entities as the set completed them
	queries []string         // query tools, in the files' order
	secrets []string         // served columns that look like credentials, as table.column
	notes   []string         // what tables leave out, and why (see tableNotes)
	// timeouts are the tables with a timeout of their own (the config's
	// timeout), as "table 30s".
	timeouts []string
}

// planTables introspects src's database and makes each table's entity
// and options, with the config file's settings applied, to be added to
// the source's Set (see addSources).
func (s *server) planTables(ctx context.Context, src *source) error {
	db, conf := src.db, src.tablesConf
	stop := s.progress(src.where()+"reading the tables of "+db.display+"…", progressAfter)
	defer stop()
	opts := &entity.IntrospectOptions{Tables: src.tables, ExcludeTables: src.exclude}
	if conf != nil {
		opts.ExcludeColumns = conf.HiddenColumns()
	}
	if db.engine == entity.PostgreSQL {
		var err error
		if opts.Schema, err = pgSchema(ctx, db); err != nil {
			return err
		}
	}
	entities, err := entity.Introspect(ctx, db.db, db.engine, opts)
	if err != nil {
		hint := ""
		if len(src.tables) > 0 {
			hint = " (check the names given to " + src.tablesFlag() + s.suggestTable(ctx, src, opts) + ")"
		}
		return fmt.Errorf("%scannot read the tables of %s: %s%s", src.where(), db.display, joinLines(err), hint)
	}
	if err := checkTables(entities, src); err != nil {
		return err
	}
	for _, e := range entities {
		o := &entity.Options{Groups: tableGroups(e, db)}
		if src.groups != nil {
			// With several sources, the source's name is the table's
			// namespace.
			o.Groups = slices.Clone(src.groups)
			if g := groupOf(e.Plural); g != "" && !slices.Contains(o.Groups, g) {
				o.Groups = append(o.Groups, g)
			}
		}
		// Introspection marks the fields a full-text index covers: a
		// table with none has no index to look for (which costs a catalog
		// scan per table on SQLite).
		indexed := slices.ContainsFunc(e.Fields, func(f *entity.Field) bool { return f.Searchable })
		if t := tableConfig(conf, e.Table); t != nil {
			if o.Timeout = t.Timeout; o.Timeout > 0 {
				src.served.timeouts = append(src.served.timeouts, tableName(e.Table)+" "+o.Timeout.String())
			}
			if o.Searcher, err = s.configure(ctx, db, e, t, indexed); err != nil {
				return err
			}
			o.Access = entityAccess(t.Access)
		} else if indexed {
			if o.Searcher, err = searchIndex(ctx, db, e); err != nil {
				return err
			}
		}
		src.units = append(src.units, &unit{e: e, o: o})
	}
	return nil
}

// checkTables refuses a start that would serve nothing, or not what the
// flags and the config file name.
func checkTables(entities []*entity.Entity, src *source) error {
	db, conf := src.db, src.tablesConf
	have := map[string]bool{}
	for _, e := range entities {
		have[e.Table] = true
	}
	for _, t := range src.tables {
		if !have[t] && !slices.Contains(src.exclude, t) {
			return fmt.Errorf("%stable %q not found in %s, or none of its columns can be served; check the name (without %s every table is listed at start-up)", src.where(), t, db.display, src.tablesFlag())
		}
	}
	if conf != nil {
		for _, name := range conf.Order {
			skipped := slices.Contains(src.exclude, name) || len(src.tables) > 0 && !slices.Contains(src.tables, name)
			if !have[name] && !skipped {
				return conf.Tables[name].Errorf("table %q is not in %s, or none of its columns can be served%s", name, db.display, suggest(name, slices.Collect(maps.Keys(have))))
			}
		}
	}
	if len(entities) == 0 {
		return fmt.Errorf("%sno tables to serve in %s; check the database (and the schema: search_path on PostgreSQL) and %s", src.where(), db.display, src.tablesFlags())
	}
	return nil
}

// suggestTable is the "did you mean" of the first -tables name the
// database lacks, read again without -tables (this runs only when
// start-up fails).
func (s *server) suggestTable(ctx context.Context, src *source, opts *entity.IntrospectOptions) string {
	db := src.db
	all := *opts
	all.Tables = nil
	entities, err := entity.Introspect(ctx, db.db, db.engine, &all)
	if err != nil {
		return ""
	}
	have := make([]string, len(entities))
	for i, e := range entities {
		have[i] = e.Table
	}
	for _, t := range src.tables {
		if !slices.Contains(have, t) {
			return suggest(t, have)
		}
	}
	return ""
}

// suggest is "; did you mean NAME?" for the name of have that name misses
// by case or by a plural's ending, or empty.
func suggest(name string, have []string) string {
	fold := func(s string) string { return strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(s), "s"), "e") }
	for _, h := range slices.Sorted(slices.Values(have)) {
		if h != name && fold(h) == fold(name) {
			return fmt.Sprintf("; did you mean %q?", h)
		}
	}
	return ""
}

func tableConfig(c *serveconfig.Config, table string) *serveconfig.Table {
	if c == nil {
		return nil
	}
	return c.Tables[table]
}

// configure applies a table's config to e and returns its searcher: the
// full-text index when it covers the fields the config names (or the
// config names none), else LIKE over the named fields.
func (s *server) configure(ctx context.Context, db *openedDB, e *entity.Entity, t *serveconfig.Table, indexed bool) (entity.Searcher, error) {
	cols, err := columns(ctx, db, e)
	if err != nil {
		return nil, err
	}
	search, err := t.Apply(e, cols)
	if err != nil {
		return nil, err
	}
	if search != nil && len(search) == 0 {
		return nil, nil // search: [] turns search off
	}
	var idx entity.Searcher
	if indexed {
		if idx, err = searchIndex(ctx, db, e); err != nil {
			return nil, err
		}
	}
	if search == nil || idx != nil && sameFields(indexFields(idx), search) {
		return idx, nil
	}
	return &likesearch.Searcher{Engine: db.engine, Fields: search}, nil
}

// pgSchema is the PostgreSQL schema to serve: the first of the
// search_path that exists. Introspection is given it so that the tools'
// SQL names it: unqualified, a table called pg_settings or
// pg_stat_activity would be pg_catalog's, which every search_path
// searches first.
func pgSchema(ctx context.Context, db *openedDB) (string, error) {
	var schema sql.NullString
	if err := db.db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return "", fmt.Errorf("cannot read the schema of %s: %s", db.display, joinLines(err))
	}
	if !schema.Valid {
		return "", fmt.Errorf("no schema to read in %s: the search_path names none that exists; check search_path in the URL", db.display)
	}
	return schema.String, nil
}

// searchIndex returns the searcher of e's full-text index, or nil.
func searchIndex(ctx context.Context, db *openedDB, e *entity.Entity) (entity.Searcher, error) {
	idx, err := entity.FindSearchIndex(ctx, db.db, db.engine, e)
	if err != nil {
		return nil, fmt.Errorf("table %s: cannot read its search index: %s", tableName(e.Table), joinLines(err))
	}
	return idx, nil
}

func indexFields(s entity.Searcher) []string {
	switch s := s.(type) {
	case *entity.FTS5Searcher:
		return s.Fields
	case *entity.PostgresSearcher:
		return s.Fields
	case *entity.MySQLSearcher:
		return s.Fields
	}
	return nil
}

func sameFields(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}

// columns lists every column of e's table (hidden and unserved ones too),
// from a query that reads no row. The names come from introspection and
// are quoted for the engine.
func columns(ctx context.Context, db *openedDB, e *entity.Entity) ([]string, error) {
	q := `"`
	if db.engine == entity.MySQL {
		q = "`"
	}
	quote := func(name string) string { return q + strings.ReplaceAll(name, q, q+q) + q }
	from := quote(e.Table)
	if e.Schema != "" {
		from = quote(e.Schema) + "." + from
	}
	rows, err := db.db.QueryContext(ctx, "SELECT * FROM "+from+" WHERE 1 = 0") //nolint:gosec // G202: names the database gave, quoted
	if err != nil {
		return nil, fmt.Errorf("table %s: cannot read its columns: %s", tableName(e.Table), joinLines(err))
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("table %s: cannot read its columns: %s", tableName(e.Table), joinLines(err))
	}
	return cols, rows.Close()
}

// progress prints msg on stderr if the returned stop is not called within
// after, so that a slow start says what it is doing.
func (s *server) progress(msg string, after time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTimer(after)
		defer t.Stop()
		select {
		case <-t.C:
			s.say("%s", msg)
		case <-done:
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}
