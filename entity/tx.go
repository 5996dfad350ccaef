package entity

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/ferry-mcp/ferry"
)

// run runs fn in the call's transaction: a read-only one for reads, under
// the entity's timeout, committed when fn succeeds and rolled back when it
// fails. The call first takes a connection of the pool, waiting within
// its deadline. With a Querier that cannot begin transactions (a
// *sql.Tx), fn runs in it.
func (t *table) run(ctx context.Context, readOnly bool, fn func(ctx context.Context, tx Querier) error) error {
	if to := t.timeout; to > 0 {
		// The engine's own timeout is the same; the context's comes a
		// little later, so that the engine usually answers first.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, to+to/10+50*time.Millisecond)
		defer cancel()
	}
	if _, ok := t.set.db.(txBeginner); !ok {
		if err := fn(ctx, t.set.db); err != nil {
			return t.dbError(err)
		}
		return nil
	}
	if t.d.engine() == SQLite {
		if readOnly {
			return t.runSQLiteReadOnly(ctx, fn)
		}
		return t.runSQLiteWrite(ctx, fn)
	}
	conn, release, err := t.set.conn(ctx)
	if err != nil {
		return t.dbError(err)
	}
	defer release()
	tx, end, err := t.d.begin(ctx, conn, readOnly, t.timeout)
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

// conn is the connection a call runs on: one taken from the pool of a
// *sql.DB, waiting for a free one within ctx's deadline, or the *sql.Conn
// the Set was given. release gives the connection back.
func (s *Set) conn(ctx context.Context) (conn txBeginner, release func(), err error) {
	db, ok := s.db.(*sql.DB)
	if !ok {
		return s.db.(txBeginner), func() {}, nil
	}
	c, err := poolConn(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	return c, func() { _ = c.Close() }, nil
}

// poolConn takes a connection of db's pool. A call whose deadline passes
// while every connection of a bounded pool is in use is refused as
// unavailable: database/sql returns ctx.Err() itself only then (or when
// ctx had ended before), and a driver's error when opening a new
// connection failed.
func poolConn(ctx context.Context, db *sql.DB) (*sql.Conn, error) {
	c, err := db.Conn(ctx)
	if err == nil {
		return c, nil
	}
	n := db.Stats().MaxOpenConnections
	//nolint:errorlint // identity, not a match: see above
	if err != context.DeadlineExceeded || ctx.Err() != err || n == 0 {
		return nil, err
	}
	return nil, &ferry.Refusal{Code: ferry.RefusalUnavailable, Message: fmt.Sprintf(
		"all %d database connections of this server stayed busy with other calls until this call's deadline; try again later (the server's operator can allow more connections)", n)}
}

// runSQLiteWrite runs a write on SQLite, where one transaction at a time
// may write. The call first waits for the Set's turn to write, holding no
// connection meanwhile, so that the Set's writes queue in order and end
// with the call's deadline; then it takes a connection and begins with
// BEGIN IMMEDIATE, which takes the write lock at once, waiting under the
// connection's busy_timeout for a writer outside the Set. A deferred
// transaction would read the row under a shared lock first and then be
// refused the write lock with SQLITE_BUSY, at once and without the busy
// handler, whenever another writer went first (SQLite's way of breaking
// the deadlock). database/sql cannot ask for an IMMEDIATE transaction
// (modernc.org/sqlite takes one from the DSN, which the Set does not
// own), so BEGIN, COMMIT and ROLLBACK run as statements on the call's own
// connection.
func (t *table) runSQLiteWrite(ctx context.Context, fn func(ctx context.Context, tx Querier) error) error {
	if err := t.set.waitTurn(ctx); err != nil {
		return err
	}
	defer t.set.endTurn()
	db, ok := t.set.db.(*sql.DB)
	if !ok {
		if conn, ok := t.set.db.(*sql.Conn); ok {
			return t.dbError(immediate(ctx, conn, fn))
		}
		return t.dbError(fn(ctx, t.set.db))
	}
	conn, err := poolConn(ctx, db)
	if err != nil {
		return t.dbError(err)
	}
	defer conn.Close()
	return t.dbError(immediate(ctx, conn, fn))
}

// immediate runs fn in a BEGIN IMMEDIATE transaction on conn, committed
// when fn succeeds. A transaction that fails, or whose fn panics, is
// rolled back, even past ctx's end; if that fails too, the connection is
// discarded rather than handed back to the pool inside a transaction.
func immediate(ctx context.Context, conn *sql.Conn, fn func(ctx context.Context, tx Querier) error) error {
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	committed := false
	defer func() {
		if committed {
			return
		}
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	if err := fn(ctx, conn); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return err
	}
	committed = true
	return nil
}

// waitTurn waits until none of the Set's other SQLite writes runs, or
// refuses the call once its deadline passes.
func (s *Set) waitTurn(ctx context.Context) error {
	start := time.Now()
	select {
	case s.writer <- struct{}{}:
		return nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			return ctx.Err()
		}
		return &ferry.Refusal{Code: ferry.RefusalUnavailable, Message: fmt.Sprintf(
			"other writes kept the database busy until this call's deadline (it waited %s for its turn); try again later",
			time.Since(start).Round(time.Millisecond))}
	}
}

// endTurn lets the next SQLite write of the Set run.
func (s *Set) endTurn() { <-s.writer }

// runSQLiteReadOnly runs fn in a transaction on a connection of its own
// with PRAGMA query_only set, and clears it before the connection goes
// back to the pool; a connection where that fails is discarded, so no
// later call inherits a read-only connection. Reads do not wait for the
// Set's turn to write: in WAL mode they run beside a write, and in
// rollback-journal mode they wait for its commit under busy_timeout.
func (t *table) runSQLiteReadOnly(ctx context.Context, fn func(ctx context.Context, tx Querier) error) error {
	var conn *sql.Conn
	switch db := t.set.db.(type) {
	case *sql.DB:
		c, err := poolConn(ctx, db)
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
	// ReadOnly keeps a DSN's _txlock=immediate (modernc.org/sqlite) from
	// making a read wait for the write lock.
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
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
