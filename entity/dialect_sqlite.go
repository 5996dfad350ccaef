package entity

import (
	"context"
	"database/sql"
	"time"
)

// sqliteDialect speaks SQLite (modernc.org/sqlite). Its statement timeout
// is the context's: the driver interrupts the running statement when the
// context ends.
type sqliteDialect struct{}

func (sqliteDialect) engine() Engine              { return SQLite }
func (sqliteDialect) quote(name string) string    { return quoteWith(name, '"') }
func (sqliteDialect) placeholder(int) string      { return "?" }
func (sqliteDialect) textOrder(col string) string { return col } // BINARY collation: code points
func (sqliteDialect) returning() bool             { return true }
func (sqliteDialect) statement(q string, _ time.Duration) string {
	return q
}

func (sqliteDialect) paging(limit, offset string) string {
	return " LIMIT " + limit + " OFFSET " + offset
}

func (sqliteDialect) nullsOrder(col string, desc, _ bool) string {
	if desc {
		return col + " DESC" // NULLs are smallest: last
	}
	return col
}

// begin starts a write transaction; read-only ones run on a connection
// of their own with PRAGMA query_only (see table.runSQLiteReadOnly).
func (sqliteDialect) begin(ctx context.Context, db txBeginner, _ bool, _ time.Duration) (*sql.Tx, func(), error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	return tx, func() {}, nil
}
