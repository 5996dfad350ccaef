package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/dsn"
	"github.com/ferry-mcp/ferry/entity"
)

// floodDB is a database for the connection flood tests: the URL ferry
// serve is given, logging in as a user of its own so that its connections
// can be counted (with a connection limit of its own, so that an
// unbounded pool takes 40 of the shared server's connections, not all).
type floodDB struct {
	engine entity.Engine
	url    string
	// lock makes products unreadable to other connections until unlock.
	lock func(t *testing.T) (unlock func())
	// conns counts the connections ferry serve holds.
	conns func(t *testing.T) int
	// dba connects as the administrator would, with a connection of its
	// own, and runs a query.
	dba func(ctx context.Context) error
}

// floodUserLimit is the connection limit of the user the flood tests log
// in as: above the bound, below the shared server's limit.
const floodUserLimit = 40

// floodTable is the table the flood reads.
const floodTable = "CREATE TABLE products (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL)"

var floodEngines = []struct {
	name string
	open func(t *testing.T) *floodDB
}{
	{"postgres", postgresFloodDB},
	{"mysql", mysqlFloodDB},
	{"sqlite", sqliteFloodDB},
}

// postgresFloodDB makes a role with CONNECTION LIMIT floodUserLimit and
// a schema it owns; both are dropped when the test ends.
func postgresFloodDB(t *testing.T) *floodDB {
	t.Helper()
	admin := pingOrSkip(t, "pgx", testPG, "PostgreSQL at 127.0.0.1:5432")
	admin.SetMaxOpenConns(2)
	name := freshName("ferry_pool_")
	mustExec(t, admin, fmt.Sprintf("CREATE ROLE %s LOGIN CONNECTION LIMIT %d", name, floodUserLimit), "CREATE SCHEMA "+name+" AUTHORIZATION "+name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = admin.ExecContext(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", name)
		for _, q := range []string{"DROP SCHEMA " + name + " CASCADE", "DROP ROLE " + name} {
			if _, err := admin.ExecContext(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
		_ = admin.Close()
	})
	u, err := url.Parse(testPG)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(name)
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	owner, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, owner, floodTable, "INSERT INTO products VALUES (1, 'Mug')")
	_ = owner.Close()
	return &floodDB{
		engine: entity.PostgreSQL,
		url:    u.String(),
		lock: func(t *testing.T) func() {
			tx, err := admin.BeginTx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec("LOCK TABLE " + name + ".products IN ACCESS EXCLUSIVE MODE"); err != nil {
				t.Fatal(err)
			}
			return func() { _ = tx.Rollback() }
		},
		conns: func(t *testing.T) int {
			var n int
			if err := admin.QueryRow("SELECT count(*) FROM pg_stat_activity WHERE usename = $1", name).Scan(&n); err != nil {
				t.Error(err)
			}
			return n
		},
		dba: func(ctx context.Context) error { return connectAndQuery(ctx, "pgx", testPG) },
	}
}

// mysqlFloodDB makes a user WITH MAX_USER_CONNECTIONS floodUserLimit and
// a database it may use; both are dropped when the test ends.
func mysqlFloodDB(t *testing.T) *floodDB {
	t.Helper()
	u, err := url.Parse(testMySQL)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	adminDSN := u.User.Username() + ":" + pw + "@tcp(" + u.Host + ")/"
	admin := pingOrSkip(t, "mysql", adminDSN, "MariaDB at 127.0.0.1:3306")
	admin.SetMaxOpenConns(2)
	name := freshName("ferry_pool_")
	mustExec(t, admin,
		"CREATE DATABASE "+name+" CHARACTER SET utf8mb4",
		fmt.Sprintf("CREATE USER '%s'@'%%' WITH MAX_USER_CONNECTIONS %d", name, floodUserLimit),
		"GRANT ALL PRIVILEGES ON "+name+".* TO '"+name+"'@'%'",
		"CREATE TABLE "+name+"."+strings.TrimPrefix(floodTable, "CREATE TABLE "),
		"INSERT INTO "+name+".products VALUES (1, 'Mug')")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, q := range []string{"DROP USER '" + name + "'@'%'", "DROP DATABASE " + name} {
			if _, err := admin.ExecContext(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
		_ = admin.Close()
	})
	served := *u
	served.User = url.User(name)
	served.Path = "/" + name
	return &floodDB{
		engine: entity.MySQL,
		url:    served.String(),
		lock: func(t *testing.T) func() {
			conn, err := admin.Conn(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(t.Context(), "LOCK TABLES "+name+".products WRITE"); err != nil {
				t.Fatal(err)
			}
			return func() {
				_, _ = conn.ExecContext(context.Background(), "UNLOCK TABLES")
				_ = conn.Close()
			}
		},
		conns: func(t *testing.T) int {
			var n int
			if err := admin.QueryRow("SELECT count(*) FROM information_schema.PROCESSLIST WHERE USER = ?", name).Scan(&n); err != nil {
				t.Error(err)
			}
			return n
		},
		dba: func(ctx context.Context) error { return connectAndQuery(ctx, "mysql", adminDSN) },
	}
}

// sqliteFloodDB is a SQLite file in rollback-journal mode; its
// connections are the descriptors of this process open on the file, less
// the one the test locks it with.
func sqliteFloodDB(t *testing.T) *floodDB {
	t.Helper()
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("counting SQLite connections needs /proc/self/fd (Linux)")
	}
	d := sqliteTestDB(t)
	d.db.SetMaxOpenConns(1) // the test's own: the one that locks
	mustExec(t, d.db, floodTable, "INSERT INTO products VALUES (1, 'Mug')")
	return &floodDB{
		engine: entity.SQLite,
		url:    d.url,
		lock: func(t *testing.T) func() {
			conn, err := d.db.Conn(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(t.Context(), "BEGIN EXCLUSIVE"); err != nil {
				t.Fatal(err)
			}
			return func() {
				_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
				_ = conn.Close()
			}
		},
		conns: func(t *testing.T) int { return openFiles(t, d.url) - 1 },
		dba:   func(context.Context) error { return nil },
	}
}

// openFiles counts this process's descriptors open on path.
func openFiles(t *testing.T, path string) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Error(err)
		return 0
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == path {
			n++
		}
	}
	return n
}

// connectAndQuery opens a connection of its own, as an administrator's
// client would, runs a query and closes it.
func connectAndQuery(ctx context.Context, driver, dsn string) error {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	var one int
	return db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// floodCallers are the loopback addresses the floods come from, each a
// caller of its own for the per-caller limits.
var floodCallers = []string{"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"}

// A flood of calls waiting on a locked table holds no more database
// connections than -db-max-conns allows (by default, per engine), while
// the administrator can still connect; the calls wait for a connection
// and all succeed once the lock goes, and the per-caller limits still
// refuse what is over them (32 calls in flight per caller by default:
// two of each caller's 34).
func TestServeConnectionsBoundedUnderFlood(t *testing.T) {
	const perCaller, overLimit = 34, 2
	for _, eng := range floodEngines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			bound := dsn.DefaultMaxConns(d.engine)
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
			unlock := d.lock(t)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			var tl tally
			var wg sync.WaitGroup
			for _, ip := range floodCallers {
				hc := callerAt(ip)
				for range perCaller {
					wg.Go(func() { tl.add("list_products", s.callFrom(ctx, hc, "list_products", map[string]any{})) })
				}
			}
			// The flood is all in once every caller's extra calls have
			// been refused; it stays so while the table is locked.
			peak, dbaErr := 0, error(nil)
			deadline := time.Now().Add(15 * time.Second)
			for time.Now().Before(deadline) {
				peak = max(peak, d.conns(t))
				if len(tl.sorted()) >= overLimit*len(floodCallers) && peak >= bound {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			for range 20 {
				peak = max(peak, d.conns(t))
				time.Sleep(10 * time.Millisecond)
			}
			dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
			dbaErr = d.dba(dctx)
			dcancel()
			unlock()
			wg.Wait()
			t.Logf("%s: %d calls from %d callers, bound %d: peak %d connections; %d succeeded; the longest call took %s",
				eng.name, perCaller*len(floodCallers), len(floodCallers), bound, peak, tl.ok, tl.longest.Round(time.Millisecond))
			if peak != bound {
				t.Errorf("the flood held at most %d connections at once; want the bound, %d", peak, bound)
			}
			if dbaErr != nil {
				t.Errorf("the administrator cannot connect during the flood: %v", dbaErr)
			}
			failures := tl.sorted()
			if want := perCaller*len(floodCallers) - overLimit*len(floodCallers); tl.ok != want {
				t.Errorf("%d calls succeeded; want %d", tl.ok, want)
			}
			for _, f := range failures {
				if !strings.Contains(f, "too many calls") {
					t.Errorf("a call failed other than by the per-caller limit: %s", f)
					break
				}
			}
		})
	}
}

// Calls that wait for a connection past their deadline are refused as
// unavailable with a sentence, never as a failure of the tool; the server
// serves again once the table is free.
func TestServeConnectionWaitPastDeadlineIsUnavailable(t *testing.T) {
	const calls = 12
	for _, eng := range floodEngines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-db-max-conns", "2", "-statement-timeout", "1s"})
			if !strings.Contains(s.stderr.String(), "database connections: at most 2 at once") {
				t.Errorf("the start-up lines do not state the bound:\n%s", s.stderr.String())
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			unlock := d.lock(t)
			var tl tally
			var wg sync.WaitGroup
			hc := callerAt("127.0.0.1")
			for range calls {
				wg.Go(func() { tl.add("list_products", s.callFrom(ctx, hc, "list_products", map[string]any{})) })
			}
			wg.Wait()
			unlock()
			pool := 0
			for _, f := range tl.sorted() {
				if !strings.Contains(f, "unavailable: ") || !strings.Contains(f, "try again") {
					t.Errorf("a call waiting past its deadline: %s; want unavailable, saying to try again", f)
				}
				if strings.Contains(f, "all 2 database connections") {
					pool++
				}
			}
			t.Logf("%s: %d calls, bound 2, table locked past the deadline: %d refused for want of a connection, %d by the engine's timeout; the longest took %s",
				eng.name, calls, pool, calls-pool-tl.ok, tl.longest.Round(time.Millisecond))
			if tl.ok != 0 || pool == 0 {
				t.Errorf("%d calls succeeded and %d were refused for want of a connection; want 0 and some: %q", tl.ok, pool, tl.sorted())
			}
			if r := s.call(t, "list_products", map[string]any{}); r.IsError {
				t.Errorf("a call after the lock: %s", r.text())
			}
		})
	}
}

// -db-max-conns takes a positive number.
func TestServeMaxConnsFlag(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	for _, v := range []string{"0", "-3"} {
		code, stderr := failServe(t, []string{"-db", d.url, "-db-max-conns", v})
		if code != exitUsage || !strings.Contains(stderr, "-db-max-conns "+v+": give 1 or more") {
			t.Errorf("-db-max-conns %s: exit %d, %q", v, code, stderr)
		}
	}
}

// Start-up states the bound, and warns when it is above what the server
// lets the user open.
func TestServeWarnsOfABoundAboveTheServerLimit(t *testing.T) {
	for _, eng := range floodEngines[:2] {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			over := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-db-max-conns", "50"})
			want := fmt.Sprintf("warning: -db-max-conns 50 is above the %d connections", floodUserLimit)
			if !strings.Contains(over.stderr.String(), want) {
				t.Errorf("start-up with a bound above the user's limit lacks %q:\n%s", want, over.stderr.String())
			}
			under := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
			if out := under.stderr.String(); !strings.Contains(out, "database connections: at most 10 at once") || strings.Contains(out, "warning") {
				t.Errorf("start-up with the default bound:\n%s", out)
			}
		})
	}
}
