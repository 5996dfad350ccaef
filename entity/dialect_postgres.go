package entity

import (
	"context"
	"database/sql"
	"strconv"
	"time"
)

// pgDialect speaks PostgreSQL (pgx through database/sql). Every statement
// it writes has arguments or none from the model, so pgx never sends one
// through the simple protocol with model text in it.
type pgDialect struct{}

func (pgDialect) engine() Engine           { return PostgreSQL }
func (pgDialect) quote(name string) string { return quoteWith(name, '"') }
func (pgDialect) placeholder(n int) string { return "$" + strconv.Itoa(n) }

// textOrder casts to text first: an enum column takes no collation.
func (pgDialect) textOrder(col string) string {
	return "CAST(" + col + ` AS text) COLLATE "C"`
}
func (pgDialect) returning() bool { return true }
func (pgDialect) statement(q string, _ time.Duration) string {
	return q
}

func (pgDialect) paging(limit, offset string) string {
	return " LIMIT " + limit + " OFFSET " + offset
}

func (pgDialect) nullsOrder(col string, desc, nullable bool) string {
	switch {
	case desc && nullable:
		return col + " DESC NULLS LAST"
	case desc:
		return col + " DESC"
	case nullable:
		return col + " NULLS FIRST"
	}
	return col
}

// begin starts a transaction (BEGIN ISOLATION LEVEL REPEATABLE READ READ
// ONLY for reads, which pgx sends in one statement) and bounds its statements with SET LOCAL
// statement_timeout, which ends with the transaction.
func (pgDialect) begin(ctx context.Context, db txBeginner, readOnly bool, timeout time.Duration) (*sql.Tx, func(), error) {
	opts := &sql.TxOptions{ReadOnly: readOnly}
	if readOnly {
		// One snapshot for a page and its count (a read-only transaction
		// never fails to serialize). MySQL's default is already this.
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	if timeout > 0 {
		// SET takes no parameters: the number is formatted from our own
		// option, never from a call's arguments.
		if _, err := tx.ExecContext(ctx, "SET LOCAL statement_timeout = "+millis(timeout)); err != nil {
			rollbackQuietly(tx)
			return nil, nil, err
		}
	}
	return tx, func() {}, nil
}
