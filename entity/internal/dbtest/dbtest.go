// Package dbtest opens the three engines entity tests run on: SQLite in a
// temporary directory, PostgreSQL in a fresh schema and MariaDB/MySQL in a
// fresh database, each dropped when the test ends. Other test runs share
// the same servers, so nothing here touches a name it did not create.
//
// When the CI environment variable is set a server that does not answer
// fails the test; otherwise the test is skipped with a message saying
// which server was missing.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	// The drivers, registered as "sqlite", "pgx" and "mysql".
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// The servers' addresses, overridable for machines that keep them
// elsewhere.
var (
	pgBase    = env("FERRY_TEST_PG", "postgres://root@127.0.0.1:5432/test?sslmode=disable")
	mysqlBase = env("FERRY_TEST_MYSQL", "root@tcp(127.0.0.1:3306)/")
)

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Name returns a fresh name with the given prefix, such as ferry_3fa2c1d0e9b8,
// for a schema, database or table no other test run uses.
func Name(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// SQLite opens a new SQLite database file in t.TempDir() with foreign
// keys enforced, closed when the test ends.
func SQLite(t testing.TB) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatalf("dbtest: open sqlite: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("dbtest: open sqlite: %v", err)
	}
	return db
}

// Postgres creates a fresh schema in the test database and returns a
// *sql.DB (pgx) whose search_path is that schema; the schema is dropped
// when the test ends.
func Postgres(t testing.TB) *sql.DB {
	t.Helper()
	admin := open(t, "pgx", pgBase, "PostgreSQL at 127.0.0.1:5432")
	schema := Name("ferry_")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		_ = admin.Close()
		t.Fatalf("dbtest: create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("dbtest: drop schema %s: %v", schema, err)
		}
		_ = admin.Close()
	})
	db := open(t, "pgx", withParam(pgBase, "search_path", schema), "PostgreSQL at 127.0.0.1:5432")
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// withParam adds a query parameter to a URL DSN, whether or not it has a
// query already (FERRY_TEST_PG may give none).
func withParam(dsn, name, value string) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + url.QueryEscape(name) + "=" + url.QueryEscape(value)
}

// PostgresSchema returns the schema Postgres made db's search_path.
func PostgresSchema(t testing.TB, db *sql.DB) string {
	t.Helper()
	var s string
	if err := db.QueryRow("SELECT current_schema()").Scan(&s); err != nil {
		t.Fatalf("dbtest: current_schema: %v", err)
	}
	return s
}

// MySQL creates a fresh database on the MariaDB/MySQL server and returns
// a *sql.DB using it; the database is dropped when the test ends. The DSN
// sets no parseTime, as a service's own DSN may not either.
func MySQL(t testing.TB) *sql.DB {
	t.Helper()
	admin := open(t, "mysql", mysqlBase, "MariaDB/MySQL at 127.0.0.1:3306")
	name := Name("ferry_")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4"); err != nil {
		_ = admin.Close()
		t.Fatalf("dbtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE "+name); err != nil {
			t.Errorf("dbtest: drop database %s: %v", name, err)
		}
		_ = admin.Close()
	})
	db := open(t, "mysql", mysqlBase+name, "MariaDB/MySQL at 127.0.0.1:3306")
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// open opens and pings a server, failing under CI and skipping otherwise
// when it does not answer.
func open(t testing.TB, driver, dsn, what string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatalf("dbtest: open %s: %v", what, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		if os.Getenv("CI") != "" {
			t.Fatalf("dbtest: %s does not answer (CI is set): %v", what, err)
		}
		t.Skipf("dbtest: %s does not answer, skipping: %v", what, err)
	}
	return db
}

// Engines lists the engines by the names entity uses, with their openers,
// for tests that run the same case on each.
var Engines = []struct {
	Name string
	Open func(testing.TB) *sql.DB
}{
	{"sqlite", SQLite},
	{"postgres", Postgres},
	{"mysql", MySQL},
}
