package entity

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// dialect is what differs between the engines in the SQL entity tools
// write. Every identifier it writes comes from the entity model, quoted;
// every value is a placeholder.
type dialect interface {
	engine() Engine
	// quote quotes an identifier.
	quote(name string) string
	// placeholder returns the placeholder of the n-th argument (1-based).
	placeholder(n int) string
	// paging returns the LIMIT/OFFSET clause, with its values bound.
	paging(limit, offset string) string
	// textOrder returns the expression ordering a text column by code
	// point.
	textOrder(col string) string
	// nullsOrder returns the ORDER BY term for col and direction, NULLs
	// first ascending and last descending on every engine; for a column
	// that holds no NULL it adds nothing, so an index keeps serving the
	// order.
	nullsOrder(col string, desc, nullable bool) string
	// returning says INSERT ... RETURNING exists.
	returning() bool
	// begin starts a call's transaction with its statement timeout.
	begin(ctx context.Context, db txBeginner, readOnly bool, timeout time.Duration) (*sql.Tx, func(), error)
	// statement prefixes a statement with what bounds its run time, or
	// returns it unchanged.
	statement(q string, timeout time.Duration) string
}

// txBeginner is a Querier that starts transactions: *sql.DB and *sql.Conn.
type txBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// detectEngine names the engine of a Querier whose driver it knows by its
// type name, without importing the drivers: modernc.org/sqlite,
// github.com/jackc/pgx/v5/stdlib and github.com/go-sql-driver/mysql.
func detectEngine(q Querier) (Engine, error) {
	d, ok := q.(interface{ Driver() driver.Driver })
	if !ok {
		return "", fmt.Errorf("entity: cannot tell the engine of a %T: set SetOptions.Engine", q)
	}
	name := fmt.Sprintf("%T", d.Driver())
	switch {
	case strings.Contains(name, "sqlite"):
		return SQLite, nil
	case strings.Contains(name, "stdlib"), strings.Contains(name, "pgx"), strings.Contains(name, "pq."):
		return PostgreSQL, nil
	case strings.Contains(name, "mysql"):
		return MySQL, nil
	}
	return "", fmt.Errorf("entity: unknown driver %s: set SetOptions.Engine", name)
}

// newDialect returns the dialect of an engine.
func newDialect(e Engine) (dialect, error) {
	switch e {
	case SQLite:
		return sqliteDialect{}, nil
	case PostgreSQL:
		return pgDialect{}, nil
	case MySQL:
		return &mysqlDialect{}, nil
	}
	return nil, fmt.Errorf("entity: unknown engine %q", e)
}

// quoteWith doubles q inside name and encloses it in q. A NUL cannot be
// quoted; the model never holds one (registration refuses it).
func quoteWith(name string, q byte) string {
	var b strings.Builder
	b.Grow(len(name) + 2)
	b.WriteByte(q)
	for i := 0; i < len(name); i++ {
		if name[i] == q {
			b.WriteByte(q)
		}
		b.WriteByte(name[i])
	}
	b.WriteByte(q)
	return b.String()
}

// millis formats a timeout in whole milliseconds, at least 1, from our own
// option: SET takes no parameters.
func millis(d time.Duration) string {
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10)
}

// rollbackQuietly ends tx after a failure that is already being reported.
func rollbackQuietly(tx *sql.Tx) { _ = tx.Rollback() }
