package entity

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"time"
)

// mysqlDialect speaks MySQL and MariaDB (go-sql-driver/mysql). It learns
// which of the two it talks to from the server's version, once.
type mysqlDialect struct {
	mu      sync.Mutex
	known   bool // guarded by mu: the server's kind has been learnt
	mariaDB bool // guarded by mu
}

func (*mysqlDialect) engine() Engine           { return MySQL }
func (*mysqlDialect) quote(name string) string { return quoteWith(name, '`') }
func (*mysqlDialect) placeholder(int) string   { return "?" }

// textOrder orders by the UTF-8 bytes, which is code point order, whatever
// the column's collation.
func (*mysqlDialect) textOrder(col string) string { return "CAST(" + col + " AS BINARY)" }

// returning: MariaDB has INSERT ... RETURNING, MySQL does not.
func (d *mysqlDialect) returning() bool { return d.isMariaDB() }

func (d *mysqlDialect) isMariaDB() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mariaDB
}

func (*mysqlDialect) paging(limit, offset string) string {
	return " LIMIT " + limit + " OFFSET " + offset
}

func (*mysqlDialect) nullsOrder(col string, desc, _ bool) string {
	if desc {
		return col + " DESC"
	}
	return col
}

// statement bounds one statement: MariaDB's SET STATEMENT
// max_statement_time (seconds) covers every statement kind; MySQL's
// MAX_EXECUTION_TIME hint only SELECTs, so writes there rely on the
// context.
func (d *mysqlDialect) statement(q string, timeout time.Duration) string {
	if timeout <= 0 {
		return q
	}
	if d.isMariaDB() {
		secs := strconv.FormatFloat(max(timeout.Seconds(), 0.001), 'f', 3, 64)
		return "SET STATEMENT max_statement_time=" + secs + " FOR " + q
	}
	if rest, ok := strings.CutPrefix(q, "SELECT "); ok {
		return "SELECT /*+ MAX_EXECUTION_TIME(" + millis(timeout) + ") */ " + rest
	}
	return q
}

// begin starts a transaction, START TRANSACTION READ ONLY for reads (what
// the driver sends for sql.TxOptions.ReadOnly).
func (d *mysqlDialect) begin(ctx context.Context, db txBeginner, readOnly bool, _ time.Duration) (*sql.Tx, func(), error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: readOnly})
	if err != nil {
		return nil, nil, err
	}
	d.detect(ctx, tx)
	return tx, func() {}, nil
}

// detect learns whether the server is MariaDB, on the first transaction
// that manages to ask. Until then it is taken for MySQL, whose ways
// (LastInsertId, the MAX_EXECUTION_TIME hint, a comment to MariaDB) work
// on both.
func (d *mysqlDialect) detect(ctx context.Context, q Querier) {
	d.mu.Lock()
	known := d.known
	d.mu.Unlock()
	if known {
		return
	}
	var v string
	if err := q.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return
	}
	d.mu.Lock()
	d.known, d.mariaDB = true, strings.Contains(strings.ToLower(v), "mariadb")
	d.mu.Unlock()
}
