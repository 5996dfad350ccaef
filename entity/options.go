package entity

import (
	"context"
	"time"

	"github.com/ferry-mcp/ferry"
)

// Op is one of an entity's tools.
type Op uint8

// The tools of an entity.
const (
	Get Op = iota + 1
	List
	Create
	Update
	Delete
	// Aggregate is aggregate_<plural>: counts, sums, averages, minimums
	// and maximums over groups of records. It is served only for an
	// entity with an [Field.Aggregatable] field.
	Aggregate
)

// allOps are the tools of an entity, in the order they are registered.
func allOps() []Op { return []Op{Get, List, Create, Update, Delete, Aggregate} }

// String returns the tool's verb: "get", "list", "create", "update",
// "delete" or "aggregate".
func (o Op) String() string {
	switch o {
	case Get:
		return "get"
	case List:
		return "list"
	case Create:
		return "create"
	case Update:
		return "update"
	case Delete:
		return "delete"
	case Aggregate:
		return "aggregate"
	}
	return "op(?)"
}

// DefaultTimeout is the statement timeout of a call when
// [SetOptions.Timeout] is zero.
const DefaultTimeout = 10 * time.Second

// DefaultTop and MaxTop bound the list tools' top argument: a call that
// gives none gets DefaultTop rows, and one asking for more than MaxTop is
// refused.
const (
	DefaultTop = 100
	MaxTop     = 1000
)

// DefaultMaxResultBytes bounds the JSON of one list result when
// [Options.MaxResultBytes] is zero.
const DefaultMaxResultBytes = 1 << 20

// SetOptions configures a [Set]. A nil *SetOptions is the zero value.
type SetOptions struct {
	// Engine is the database's engine. If empty, it is told from the
	// Querier's driver (a *sql.DB of modernc.org/sqlite, pgx's stdlib or
	// go-sql-driver/mysql); a *sql.Tx or *sql.Conn needs it set.
	Engine Engine
	// Timeout bounds a call, enforced by the engine and by the call's
	// context (a little longer, so that the engine usually answers
	// first): on PostgreSQL statement_timeout covers every statement of
	// the call's transaction, hooks' included; MariaDB's
	// max_statement_time and MySQL's MAX_EXECUTION_TIME (reads only)
	// cover the tools' own statements; SQLite's statements are
	// interrupted by the context. If zero, [DefaultTimeout]; if negative,
	// only the call's own context bounds it.
	Timeout time.Duration
	// ReadOnly leaves out every entity's write tools. A server made
	// read-only (a ServerOptions setting of the core) hides them as well,
	// since they are not marked ReadOnly.
	ReadOnly bool
	// Groups, if not nil, are the groups ([ferry.Tool.Groups]) of every
	// tool, resource and resource template the Set registers (its
	// entities', its queries' and [Set.AddResources]'), such as the name
	// of the database when a server serves several. If nil, each gets
	// the core's default.
	Groups []string
}

// Options configures one entity's tools. A nil *Options is the zero
// value.
type Options struct {
	// Name and Plural, if not empty, replace the entity's names, which
	// name its tools (get_Name, list_Plural).
	Name, Plural string
	// Table, if not empty, replaces the entity's table (for entities from
	// Go types; see [Of]).
	Table string
	// Description, if not empty, replaces the entity's description.
	Description string
	// ToolNames replaces the default name of a tool, such as
	// {entity.List: "find_products"}.
	ToolNames map[Op]string
	// ToolPrefix, if not empty, comes before the name of each of the
	// entity's tools, ToolNames' included: "sales_" gives
	// sales_list_products, to tell apart the tables of two databases
	// that share a name. A default name longer than [MaxToolName] is
	// shortened with the prefix in it.
	ToolPrefix string
	// Exclude leaves tools out, such as [Delete]. Get and List may be left
	// out too.
	Exclude []Op
	// ReadOnly leaves out the write tools (as for a view).
	ReadOnly bool
	// Searcher, if not nil, gives the list tool a search argument (see
	// [Searcher]). Without one the list tool has none.
	Searcher Searcher
	// SkipTotalCount leaves totalCount out of list results: counting runs
	// a second query with the same conditions (COUNT(*)), which costs a
	// scan of the matching rows on a large table.
	SkipTotalCount bool
	// MaxResultBytes bounds the JSON of a list result's records: a page
	// that would be larger ends early, with hasMore true, so the caller
	// goes on with a larger skip. It always holds at least one record. If
	// zero, [DefaultMaxResultBytes]. The server's own result budget
	// (ferry.Limits.MaxResultBytes) applies after it, cutting a page at a
	// whole record too.
	MaxResultBytes int
	// Timeout bounds this entity's calls in place of [SetOptions.Timeout]:
	// the engine's statement timeout and the call's context, as there.
	// Its tools' deadline ([ferry.Tool.Timeout]) is then set a little
	// beyond it, so that the engine answers first and a server's shorter
	// CallTimeout does not end the calls sooner. If zero, the Set's (and
	// the tools have the server's deadline); if negative, the calls have
	// no statement timeout, only the server's deadline.
	Timeout time.Duration
	// Confirm is the confirmation policy of the entity's create, update
	// and delete tools: whether a person confirms a call before it runs
	// (see [ferry.ServerOptions.Confirm]). If zero, a server that
	// confirms asks before a delete (a destructive tool) and an update
	// (which overwrites values: [ferry.ConfirmWrites]), not before a
	// create; [ferry.ConfirmNever] asks before none of them,
	// [ferry.ConfirmAlways] before each, whatever the server's option.
	// The person reads the tool, its arguments and what it changes.
	Confirm ferry.ConfirmPolicy
	// TaskSupport says whether the entity's tools may run as tasks of the
	// tasks extension ([ferry.Tool.TaskSupport]): a client that speaks
	// tasks may then poll a slow list or aggregate rather than wait on
	// it. If zero, they never do.
	TaskSupport ferry.TaskSupport
	// Hooks run before the entity's tools read and write.
	Hooks Hooks
	// Scope, if not nil, restricts every read and write to the rows whose
	// field holds the caller's value (a tenant, an owner).
	Scope *Scope
	// Access says which callers (by the core's scopes and roles) may
	// read, write and delete; the zero value lets every caller.
	Access Access
	// Groups are the groups of the entity's tools ([ferry.Tool.Groups]).
	// If nil, the entity's Plural ("products"), when it is a valid group
	// name ([ferry.ValidGroupName]), and none otherwise; empty for none.
	Groups []string
}

// Hooks are an entity's checks. Each runs inside the call's transaction,
// before the statement it precedes; returning an error stops the call
// (a [ferry.Refusal] reaches the model as it is; another error is masked
// and logged). A nil hook does nothing. Hooks run concurrently for
// concurrent calls, except the write hooks of a Set on SQLite, which run
// one at a time as its writes do (see [NewSet]).
type Hooks struct {
	// BeforeCreate runs before a record is inserted: it may refuse, and
	// set, change or delete w.Values (filling created_by from the
	// principal, say).
	BeforeCreate func(ctx context.Context, w *Write) error
	// BeforeUpdate runs before a record is changed, with w.Old the record
	// as stored and w.Values the fields to change.
	BeforeUpdate func(ctx context.Context, w *Write) error
	// BeforeDelete runs before a record is deleted, with w.Old the record.
	BeforeDelete func(ctx context.Context, w *Write) error
	// BeforeRead runs before get, list and aggregate read, in their read-only
	// transaction: anything it writes through r.Tx fails.
	BeforeRead func(ctx context.Context, r *Read) error
}

// Write is what a write hook sees and may change.
type Write struct {
	// Entity is the entity written. Do not modify it.
	Entity *Entity
	// Op is Create, Update or Delete.
	Op Op
	// Tx runs statements in the call's transaction: a *sql.Tx, or on
	// SQLite the call's *sql.Conn inside BEGIN IMMEDIATE. A hook does not
	// commit or roll it back.
	Tx Querier
	// Principal is the caller, or nil.
	Principal *ferry.Principal
	// Values are the fields to write, by field Name: strings,
	// json.Number, bool or nil as decoded from the call, already checked
	// against the field's schema. A hook may set values of the same kinds
	// (a time.Time for a timestamp, an int64 for an integer are accepted
	// too); they are checked for their type only, not against the
	// schema's keywords.
	Values map[string]any
	// Old is the record as stored (update and delete), as the tools serve
	// it.
	Old map[string]any
}

// Read is what a read hook sees.
type Read struct {
	// Entity is the entity read. Do not modify it.
	Entity *Entity
	// Op is Get, List or Aggregate.
	Op Op
	// Tx is the call's read-only transaction.
	Tx Querier
	// Principal is the caller, or nil.
	Principal *ferry.Principal
}

// Scope is a row-level restriction computed from the caller: every read
// and write of the entity keeps to the rows whose Field equals Value's
// result. A row outside it is not found; a create gets the value forced;
// an update cannot change the field. A write of another entity's field
// that refers to this one must name a row in the caller's scope of it
// (else it refers to no record). The value is compared exactly, whatever
// the column's collation. It is a column and a value, never SQL text. A
// unique constraint that is not per tenant still tells a caller that a
// value exists elsewhere (a conflict): make natural keys unique per
// tenant, such as UNIQUE (tenant_id, sku).
type Scope struct {
	// Field is the Name of the scoping field, such as "tenant_id".
	Field string
	// Value returns the caller's value of the field; p is nil for an
	// anonymous caller. An error stops the call (return a
	// [ferry.Forbidden] refusal for a caller with no tenant); a nil value
	// is refused as forbidden.
	Value func(ctx context.Context, p *ferry.Principal) (any, error)
}
