package entity

import (
	"encoding/json"
	"fmt"

	"github.com/ferry-mcp/ferry"
)

// QueryMode is what a query's tool returns: [Many] rows, [One] row, or,
// for a write, the number of rows it changed ([Exec]). It is written
// after the query's name in a .sql file: ":many", ":one", ":exec".
type QueryMode uint8

// The query modes.
const (
	Many QueryMode = iota + 1
	One
	Exec
)

// String returns the mode as a .sql file writes it: ":many", ":one" or
// ":exec".
func (m QueryMode) String() string {
	switch m {
	case Many:
		return ":many"
	case One:
		return ":one"
	case Exec:
		return ":exec"
	}
	return ":?"
}

// DefaultQueryRows is the most rows a [Many] query returns when its
// MaxRows is zero; [MaxTop] is the most any may set.
const DefaultQueryRows = DefaultTop

// Query is a named SQL statement an operator wrote, served as a tool of
// the same name by [Set.AddQuery]. Its parameters are written @name in
// SQL and always bound, never spliced into the text. Read one from a
// .sql file with [ParseQueries] or [ReadQueries].
type Query struct {
	// Name names the tool.
	Name string
	// Mode is what the tool returns; a write must be [Exec].
	Mode QueryMode
	// Title and Description document the tool.
	Title, Description string
	// SQL is the statement, one, with its parameters written @name.
	SQL string
	// Params declares parameters: their types (needed on SQLite and
	// MySQL; PostgreSQL infers those left out) and their constraints.
	// Every @name of SQL is a parameter; one not declared here gets the
	// type the engine infers.
	Params []QueryParam
	// Columns declares the types of result columns the engine cannot
	// tell (an expression's on SQLite, say). The others get the type of
	// what the engine describes.
	Columns []QueryColumn
	// MaxRows bounds a [Many] query's rows: a result cut there says
	// hasMore. If zero, [DefaultQueryRows]; at most [MaxTop].
	MaxRows int
	// File and Line say where the query was read, for start-up errors.
	File string
	Line int
	// Access names the callers who may see and call the tool; the zero
	// value lets every caller.
	Access Callers
	// Confirm is the confirmation policy of a query that writes (see
	// [ferry.ServerOptions.Confirm]): if zero, a server that confirms
	// asks a person before a DELETE, MERGE, REPLACE or UPDATE runs, not
	// before an INSERT. The person reads the statement and its arguments.
	Confirm ferry.ConfirmPolicy
	// TaskSupport says whether the query's tool may run as a task of the
	// tasks extension ([ferry.Tool.TaskSupport]), as a long report might.
	// If zero, it never does.
	TaskSupport ferry.TaskSupport
	// Groups are the tool's groups ([ferry.Tool.Groups]), such as the
	// entity whose question it answers ("products" for best sellers). If
	// nil, [SetOptions.Groups], else none: a query is no entity, and has
	// no group of its own. A file gives them with @groups.
	Groups []string

	// sqlLine is the line of the file where SQL starts, or 0.
	sqlLine int
}

// QueryParam is one parameter of a [Query].
type QueryParam struct {
	// Name is the parameter's name, @Name in the SQL.
	Name string
	// Type is the parameter's type; zero lets PostgreSQL infer it.
	Type Type
	// Description documents the parameter.
	Description string
	// Nullable lets a call pass null; with no Default, an omitted
	// parameter is then null.
	Nullable bool
	// Default, if not nil, is the JSON value used when a call omits the
	// parameter.
	Default json.RawMessage
	// Minimum and Maximum bound a number; MinLength, MaxLength and
	// Pattern a text; Enum lists the allowed texts.
	Minimum, Maximum     *float64
	MinLength, MaxLength *int
	Pattern              string
	Enum                 []string
}

// QueryColumn declares a result column's type.
type QueryColumn struct {
	Name string
	Type Type
}

// where is "file:line: " for a start-up error about q.
func (q *Query) where() string {
	switch {
	case q.File != "" && q.Line > 0:
		return fmt.Sprintf("%s:%d: query %s: ", q.File, q.Line, q.Name)
	case q.File != "":
		return q.File + ": query " + q.Name + ": "
	}
	return "entity: query " + q.Name + ": "
}
