package entity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity/internal/filter"
)

// A Set serves entities of one database on one server: it registers
// their tools and, with [Set.AddResources], their schemas as resources.
// A Set is safe for concurrent use; its tools run concurrently, except
// its writes on SQLite, which take turns (see [NewSet]).
type Set struct {
	srv     *ferry.Server
	db      Querier
	d       dialect
	timeout time.Duration
	ro      bool
	groups  []string // SetOptions.Groups
	// writer holds a token while one of the Set's SQLite writes runs: the
	// others wait for it in order (see table.runSQLiteWrite).
	writer chan struct{}

	mu     sync.RWMutex
	tables []*table // guarded by mu; in the order added
}

// NewSet returns a Set serving entities of db as tools of srv. db is
// usually a *sql.DB: each call then takes a connection of its pool and
// runs in a transaction of its own (a read-only one for reads) under the
// engine's statement timeout. With a *sql.Tx, calls run in it, bounded by
// the context only, and reads cannot be made read-only.
//
// # Connections
//
// A call holds its connection until it ends, so bound the pool
// (db.SetMaxOpenConns) below the engine's own limit, which every client
// of the server shares (PostgreSQL's max_connections, MySQL's): without
// a bound, a burst of slow calls opens a connection each until the
// server refuses everyone, its administrator included. Past the bound a
// call waits for a free connection within its deadline
// ([SetOptions.Timeout] and the call's context), and is then refused as
// unavailable with a sentence that says to try again later; so is a call
// the server refuses for its connection limit.
//
// # Concurrent writes
//
// Concurrent writes wait for each other within their deadline and
// succeed; one whose deadline passes first, or that the engine ends to
// break a deadlock or a serialization failure, is rolled back and
// refused as unavailable, with a sentence that says to try again. On
// SQLite, where one transaction at a time writes, the Set's writes take
// turns in the order they come, holding no connection while they wait,
// and each begins with BEGIN IMMEDIATE, taking the write lock before it
// reads: a transaction that read first and then asked for the lock
// would be refused it at once with SQLITE_BUSY when another writer went
// first. Give the SQLite DSN a busy_timeout as long as the calls'
// deadline (_pragma=busy_timeout(10000) for modernc.org/sqlite): with
// none, a write of another Set or process, and on a database in
// rollback-journal mode a read during a commit, is refused at once
// instead of waiting. WAL mode (_pragma=journal_mode(WAL), a lasting
// setting of the file) lets reads run beside a write.
func NewSet(srv *ferry.Server, db Querier, opts *SetOptions) (*Set, error) {
	if srv == nil || db == nil {
		return nil, errors.New("entity: NewSet needs a server and a database")
	}
	var o SetOptions
	if opts != nil {
		o = *opts
	}
	if o.Engine == "" {
		e, err := detectEngine(db)
		if err != nil {
			return nil, err
		}
		o.Engine = e
	}
	d, err := newDialect(o.Engine)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Timeout == 0:
		o.Timeout = DefaultTimeout
	case o.Timeout < 0:
		o.Timeout = 0
	}
	return &Set{srv: srv, db: db, d: d, timeout: o.Timeout, ro: o.ReadOnly, groups: o.Groups, writer: make(chan struct{}, 1)}, nil
}

// Add adds the entity of the Go type T (see [Of]) to s, registering its
// tools, and returns it, as [Set.Add] does for an entity from [Of] or
// introspection (as [ferry.AddTool] and [ferry.Server.AddTool] are the
// typed and the plain way to add a tool).
func Add[T any](s *Set, opts *Options) (*Entity, error) {
	e, err := Of[T]()
	if err != nil {
		return nil, err
	}
	return s.Add(e, opts)
}

// Add registers the tools of e (from [Of] or introspection) and returns
// the entity as served, with opts applied: get_X, list_Xs, create_X,
// update_X and delete_X, X being its Name and Xs its Plural. An entity
// with no Key, or a View, gets read tools only, with a note in their
// descriptions. e is not kept: the Set works on a copy.
func (s *Set) Add(e *Entity, opts *Options) (*Entity, error) {
	if e == nil {
		return nil, errors.New("entity: Add of a nil entity")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	t, err := s.newTable(e, &o)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	for _, other := range s.tables {
		if other.e.Name == t.e.Name {
			s.mu.Unlock()
			return nil, fmt.Errorf("entity: a second entity named %q", t.e.Name)
		}
	}
	s.tables = append(s.tables, t)
	s.mu.Unlock()
	t.register()
	s.srv.AddCheck(t.probe)
	return cloneEntity(t.e), nil
}

// probeTimeout bounds the start-up probe of one entity's table.
const probeTimeout = 10 * time.Second

// probe is the entity's start-up check ([ferry.Server.AddCheck]): it asks
// the database for the entity's columns, reading no row, so that a table
// or column that does not exist (or a database that does not answer)
// fails start-up, naming the entity, instead of every call of its tools.
func (t *table) probe() error {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	rows, err := t.set.db.QueryContext(ctx, "SELECT "+t.cols+" FROM "+t.from+" WHERE 1 = 0")
	if err == nil {
		err = rows.Close()
	}
	if err != nil {
		return fmt.Errorf("entity %q (table %s): the database cannot serve its columns: %w", t.e.Name, t.into, err)
	}
	return nil
}

// table is an entity as a Set serves it.
type table struct {
	set     *Set
	e       *Entity
	o       *Options
	d       dialect
	key     *Field   // nil for none
	natural *Field   // nil for none
	scope   *Field   // nil for none
	from    string   // quoted table, with its alias t
	into    string   // quoted table
	cols    string   // quoted, qualified columns, in field order
	members [][]byte // each field's JSON member name and colon, in field order
	ties    []string // the tiebreak's ORDER BY terms
	order   string   // the ORDER BY clause of a list with no orderBy nor search
	filter  *filter.Env
	fidx    []*Field // the filter environment's fields
	// unnameable are the fields filters would take but CEL cannot name.
	unnameable []string
	agg        *aggregation // nil for an entity with no aggregate tool
	rels       []relation   // the relations expand may name
	relf       relatedFilter
	maxRes     int
	timeout    time.Duration // the statement timeout of its calls; 0: none
}

// alias is the table's alias in reads.
const alias = "t"

func (s *Set) newTable(in *Entity, o *Options) (*table, error) {
	e := cloneEntity(in)
	applyNames(e, o)
	if err := checkEntity(e); err != nil {
		return nil, err
	}
	if err := checkEngineTypes(e, s.d.engine()); err != nil {
		return nil, err
	}
	t := &table{set: s, e: e, o: o, d: s.d, maxRes: o.MaxResultBytes}
	if t.maxRes <= 0 {
		t.maxRes = DefaultMaxResultBytes
	}
	switch t.timeout = s.timeout; {
	case o.Timeout > 0:
		t.timeout = o.Timeout
	case o.Timeout < 0:
		t.timeout = 0
	}
	t.key, t.natural = e.Field(e.Key), e.Field(e.NaturalKey)
	if o.Scope != nil {
		if t.scope = e.Field(o.Scope.Field); t.scope == nil || o.Scope.Value == nil {
			return nil, fmt.Errorf("entity: %s: the scope names no field of the entity, or has no Value", e.Name)
		}
	}
	t.into = s.d.quote(e.Table)
	if e.Schema != "" {
		t.into = s.d.quote(e.Schema) + "." + t.into
	}
	t.from = t.into + " AS " + alias
	cols := make([]string, len(e.Fields))
	t.members = make([][]byte, len(e.Fields))
	for i, f := range e.Fields {
		cols[i] = t.value(f)
		t.members[i] = append(appendString(nil, f.Name), ':')
	}
	t.cols = strings.Join(cols, ", ")
	t.initOrder()
	t.initRelations()
	if err := t.newFilter(); err != nil {
		return nil, err
	}
	return t, t.newAggregates()
}

// col is f's qualified, quoted column.
func (t *table) col(f *Field) string { return alias + "." + t.d.quote(f.Column) }

// newFilter builds the filter environment of the filterable fields. A
// field a CEL expression cannot name (in, null, a name led by a digit)
// is not filterable: the entity as served says so, and the list tool's
// description says why.
func (t *table) newFilter() error {
	var fs []filter.Field
	for _, f := range t.e.Fields {
		if f.Filterable && !filter.Nameable(f.Name) {
			f.Filterable = false
			t.unnameable = append(t.unnameable, f.Name)
		}
		if f.Filterable {
			fs = append(fs, filter.Field{Name: f.Name, Type: f.Type, Items: f.Items, Nullable: t.nullable(f), NonFinite: t.nonFinite(f)})
			t.fidx = append(t.fidx, f)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	env, err := filter.NewEnv(fs, nil)
	if err != nil {
		return fmt.Errorf("entity: %s: %w", t.e.Name, err)
	}
	t.filter = env
	return nil
}

func applyNames(e *Entity, o *Options) {
	if o.Name != "" {
		e.Name = o.Name
		if o.Plural == "" {
			e.Plural = plural(o.Name)
		}
	}
	if o.Plural != "" {
		e.Plural = o.Plural
	}
	if o.Table != "" {
		e.Table = o.Table
	}
	if o.Description != "" {
		e.Description = o.Description
	}
}

// checkEntity refuses a model the tools cannot serve, naming the problem.
func checkEntity(e *Entity) error {
	if e.Name == "" || e.Plural == "" || e.Table == "" {
		return fmt.Errorf("entity: %q: an entity needs a Name, a Plural and a Table", e.Name)
	}
	if len(e.Fields) == 0 {
		return fmt.Errorf("entity: %s: no fields", e.Name)
	}
	seen := map[string]bool{}
	for _, f := range e.Fields {
		switch {
		case f == nil || f.Name == "" || f.Column == "":
			return fmt.Errorf("entity: %s: a field without a name or a column", e.Name)
		case seen[f.Name]:
			return fmt.Errorf("entity: %s.%s: two fields of that name", e.Name, f.Name)
		case f.Type < Text || f.Type > Array:
			return fmt.Errorf("entity: %s.%s: unknown type %d", e.Name, f.Name, f.Type)
		case strings.ContainsRune(f.Column, 0) || strings.ContainsRune(e.Table+e.Schema, 0):
			return fmt.Errorf("entity: %s.%s: a NUL in a name", e.Name, f.Name)
		}
		if err := checkStructured(e, f); err != nil {
			return err
		}
		seen[f.Name] = true
	}
	for _, k := range []string{e.Key, e.NaturalKey} {
		if k != "" && e.Field(k) == nil {
			return fmt.Errorf("entity: %s: key %q is not a field", e.Name, k)
		}
	}
	return nil
}

// cloneEntity copies e deeply enough that the copy's fields can change.
func cloneEntity(e *Entity) *Entity {
	c := *e
	c.Unserved = slices.Clone(e.Unserved)
	c.Fields = make([]*Field, len(e.Fields))
	for i, f := range e.Fields {
		if f == nil {
			continue
		}
		fc := *f
		fc.Enum = slices.Clone(f.Enum)
		if f.Minimum != nil {
			fc.Minimum = ptr(*f.Minimum)
		}
		if f.Maximum != nil {
			fc.Maximum = ptr(*f.Maximum)
		}
		if f.References != nil {
			r := *f.References
			fc.References = &r
		}
		c.Fields[i] = &fc
	}
	return &c
}

// writable says whether the entity gets write tools.
func (t *table) writable() bool {
	return t.key != nil && !t.e.View && !t.o.ReadOnly && !t.set.ro
}

// has says whether the entity gets the tool of op.
func (t *table) has(op Op) bool {
	if slices.Contains(t.o.Exclude, op) {
		return false
	}
	switch op {
	case Get:
		return t.key != nil || t.natural != nil
	case List:
		return true
	case Create:
		return t.writable() && t.e.CreateNote == ""
	case Aggregate:
		return t.aggregatable()
	}
	return t.writable()
}

// toolName is the name of op's tool.
func (t *table) toolName(op Op) string {
	if n := t.o.ToolNames[op]; n != "" {
		return t.o.ToolPrefix + n
	}
	if op == List || op == Aggregate {
		return toolName(t.o.ToolPrefix+op.String(), t.e.Plural)
	}
	return toolName(t.o.ToolPrefix+op.String(), t.e.Name)
}

// groupsOf is the Groups of an entry the Set registers: a copy of
// SetOptions.Groups, or nil for the core's default.
func (s *Set) groupsOf() []string { return slices.Clone(s.groups) }

// Engine returns the engine the Set speaks.
func (s *Set) Engine() Engine { return s.d.engine() }
