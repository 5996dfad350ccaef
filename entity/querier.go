package entity

import (
	"context"
	"database/sql"
)

// Querier runs SQL: *sql.DB, *sql.Tx and *sql.Conn satisfy it. Entity
// tools start their own transactions when the Querier can (it has
// BeginTx, as *sql.DB and *sql.Conn do) and otherwise run in the one
// the caller gave them.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
