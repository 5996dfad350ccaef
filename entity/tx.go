package entity

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"time"
)

// run runs fn in the call's transaction: a read-only one for reads, under
// the Set's timeout, committed when fn succeeds and rolled back when it
// fails. With a Querier that cannot begin transactions (a *sql.Tx), fn
// runs in it.
func (t *table) run(ctx context.Context, readOnly bool, fn func(ctx context.Context, tx Querier) error) error {
	if to := t.set.timeout; to > 0 {
		// The engine's own timeout is the same; the context's comes a
		// little later, so that the engine's usually answers first.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, to+to/10+50*time.Millisecond)
		defer cancel()
	}
	b, ok := t.set.db.(txBeginner)
	if !ok {
		if err := fn(ctx, t.set.db); err != nil {
			return t.dbError(err)
		}
		return nil
	}
	if readOnly && t.d.engine() == SQLite {
		return t.runSQLiteReadOnly(ctx, fn)
	}
	tx, end, err := t.d.begin(ctx, b, readOnly, t.set.timeout)
	if err != nil {
		return t.dbError(err)
	}
	err = fn(ctx, tx)
	end()
	if err != nil {
		rollbackQuietly(tx)
		return t.dbError(err)
	}
	if err := tx.Commit(); err != nil {
		return t.dbError(err)
	}
	return nil
}

// runSQLiteReadOnly runs fn in a transaction on a connection of its own
// with PRAGMA query_only set, and clears it before the connection goes
// back to the pool; a connection where that fails is discarded, so no
// later call inherits a read-only connection.
func (t *table) runSQLiteReadOnly(ctx context.Context, fn func(ctx context.Context, tx Querier) error) error {
	var conn *sql.Conn
	switch db := t.set.db.(type) {
	case *sql.DB:
		c, err := db.Conn(ctx)
		if err != nil {
			return t.dbError(err)
		}
		conn = c
		defer conn.Close()
	case *sql.Conn:
		conn = db
	default:
		return t.dbError(fn(ctx, t.set.db))
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		return t.dbError(err)
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA query_only = 0"); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return t.dbError(err)
	}
	if err := fn(ctx, tx); err != nil {
		rollbackQuietly(tx)
		return t.dbError(err)
	}
	if err := tx.Commit(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return t.dbError(err)
	}
	return nil
}
