package entity

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// violation is the kind of constraint a database error reports.
type violation uint8

const (
	notViolation violation = iota
	uniqueViolation
	foreignKeyViolation
	notNullViolation
	checkViolation
	badValue    // too long, out of range, wrong format
	timeoutHit  // the engine's statement timeout
	readOnlyHit // a write in a read-only transaction
	busyHit     // locked by another write, or undone to end a deadlock: try again
	connLimit   // the server refuses more connections
	unreachable // the server cannot be reached, or dropped the connection
)

// classify reads what a database error means without importing a driver:
// PostgreSQL's SQLSTATE (pgconn.PgError's SQLState method), SQLite's
// extended result code (modernc's *sqlite.Error Code method) and MySQL's
// error number (the "Error 1062 (23000): ..." text go-sql-driver writes).
func classify(err error) violation {
	if errors.Is(err, context.DeadlineExceeded) {
		return timeoutHit
	}
	if lostConnection(err) {
		return unreachable
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		return fromSQLState(st.SQLState())
	}
	var co interface{ Code() int }
	if errors.As(err, &co) {
		return fromSQLiteCode(co.Code())
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if n, ok := mysqlNumber(e.Error()); ok {
			return fromMySQLNumber(n)
		}
	}
	if strings.HasPrefix(err.Error(), "failed to encode args[") {
		// pgx refuses a value for a parameter's type before sending it,
		// such as 3000000000 for an integer (int4) column.
		return badValue
	}
	return notViolation
}

func fromSQLState(s string) violation {
	switch s {
	case "23505":
		return uniqueViolation
	case "23503":
		return foreignKeyViolation
	case "23502":
		return notNullViolation
	case "23514":
		return checkViolation
	case "57014":
		return timeoutHit
	case "25006":
		return readOnlyHit
	case "40001", "40P01", "55P03": // serialization_failure, deadlock_detected, lock_not_available
		return busyHit
	case "53300": // too_many_connections, of the server or of the role
		return connLimit
	case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
		return unreachable
	}
	if strings.HasPrefix(s, "08") { // connection_exception
		return unreachable
	}
	if strings.HasPrefix(s, "22") {
		return badValue
	}
	return notViolation
}

// fromSQLiteCode reads an extended result code.
func fromSQLiteCode(c int) violation {
	switch c {
	case 2067, 1555: // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
		return uniqueViolation
	case 787: // SQLITE_CONSTRAINT_FOREIGNKEY
		return foreignKeyViolation
	case 1299: // SQLITE_CONSTRAINT_NOTNULL
		return notNullViolation
	case 275: // SQLITE_CONSTRAINT_CHECK
		return checkViolation
	case 9: // SQLITE_INTERRUPT
		return timeoutHit
	case 8, 264, 520, 776, 1032: // SQLITE_READONLY and its extended codes
		return readOnlyHit
	case 5, 261, 517, 773, 6, 262, 518: // SQLITE_BUSY, SQLITE_LOCKED and their extended codes
		return busyHit
	}
	return notViolation
}

func fromMySQLNumber(n int) violation {
	switch n {
	case 1062, 1586:
		return uniqueViolation
	case 1451, 1452, 1216, 1217:
		return foreignKeyViolation
	case 1048, 1364:
		return notNullViolation
	case 3819, 4025:
		return checkViolation
	case 1406, 1264, 1265, 1366, 1292, 1411, 1267, 1270, 1271:
		// Too long, out of range, malformed; and a value the column's
		// character set cannot hold ("illegal mix of collations").
		return badValue
	case 1969, 3024:
		return timeoutHit
	case 1792:
		return readOnlyHit
	case 1205, 1213: // lock wait timeout, deadlock
		return busyHit
	case 1040, 1203, 1226: // too many connections, of the server or of the user
		return connLimit
	case 1053, 2002, 2003, 2006, 2013: // server shutdown; cannot connect; gone away; lost
		return unreachable
	}
	return notViolation
}

// lostWords are the texts of the drivers' own errors for a connection
// that is gone, which they do not export as values a package without the
// driver could match: pgx's "conn closed", go-sql-driver's "invalid
// connection".
var lostWords = []string{"conn closed", "invalid connection"}

// lostConnection reports whether err says that the database server could
// not be reached or dropped the connection: a network error (refused,
// reset, unreachable, the connection closed under the call), an end of
// the stream in the middle of an answer, or database/sql's bad
// connection once its retries are spent.
func lostConnection(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if slices.Contains(lostWords, e.Error()) {
			return true
		}
	}
	return false
}

// mysqlNumber reads the number of "Error 1062 (23000): ..." or
// "Error 1062: ...".
func mysqlNumber(msg string) (int, bool) {
	rest, ok := strings.CutPrefix(msg, "Error ")
	if !ok {
		return 0, false
	}
	end := strings.IndexAny(rest, " :")
	if end <= 0 {
		return 0, false
	}
	n, err := strconv.Atoi(rest[:end])
	return n, err == nil
}

// mentions reports whether a database message names column col, as the
// engines quote it in constraint messages ("products.sku", `"sku"`,
// `'sku'`, "for key 'products.sku'", "(sku)"); loose also accepts it as
// a part of a name joined by underscores ("products_sku_key").
func mentions(msg, col string, loose bool) bool {
	msg = strings.ToLower(msg)
	col = strings.ToLower(col)
	for i := 0; ; {
		j := strings.Index(msg[i:], col)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isWordByte(msg[j-1]) || loose && msg[j-1] == '_'
		after := j+len(col) == len(msg) || !isWordByte(msg[j+len(col)]) || loose && msg[j+len(col)] == '_'
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z'
}
