package main

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

	// The drivers, for setting the test databases up.
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// The servers the tests use, as entity's tests do; overridable for
// machines that keep them elsewhere. When $CI is set a server that does
// not answer fails the test instead of skipping it.
var (
	testPG    = envOr("FERRY_TEST_PG", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	testMySQL = envOr("FERRY_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/")
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// freshName returns a name no other test run uses.
func freshName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// testDB is a database made for one test: the URL ferry serve is given,
// and a handle for setting it up and checking it.
type testDB struct {
	engine string
	url    string
	db     *sql.DB
}

// engines lists the three engines' test databases.
var engines = []struct {
	name string
	open func(t testing.TB) *testDB
}{
	{"sqlite", sqliteTestDB},
	{"postgres", postgresTestDB},
	{"mysql", mysqlTestDB},
}

func sqliteTestDB(t testing.TB) *testDB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return &testDB{engine: "sqlite", url: path, db: db}
}

// postgresTestDB makes a fresh schema, named in the URL's search_path,
// and drops it when the test ends.
func postgresTestDB(t testing.TB) *testDB {
	t.Helper()
	admin := pingOrSkip(t, "pgx", testPG, "PostgreSQL at 127.0.0.1:5432")
	schema := freshName("ferry_serve_")
	mustExec(t, admin, "CREATE SCHEMA "+schema)
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		_ = admin.Close()
	})
	u, err := url.Parse(testPG)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return &testDB{engine: "postgres", url: u.String(), db: db}
}

// mysqlTestDB makes a fresh database on the MariaDB server and drops it
// when the test ends.
func mysqlTestDB(t testing.TB) *testDB {
	t.Helper()
	u, err := url.Parse(testMySQL)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	adminDSN := u.User.Username() + ":" + pw + "@tcp(" + u.Host + ")/"
	admin := pingOrSkip(t, "mysql", adminDSN, "MariaDB at 127.0.0.1:3306")
	name := freshName("ferry_serve_")
	mustExec(t, admin, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4")
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		_ = admin.Close()
	})
	db, err := sql.Open("mysql", adminDSN+name+"?parseTime=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	u.Path = "/" + name
	return &testDB{engine: "mysql", url: u.String(), db: db}
}

func pingOrSkip(t testing.TB, driver, dsn, what string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		if os.Getenv("CI") != "" {
			t.Fatalf("%s does not answer (CI is set): %v", what, err)
		}
		t.Skipf("%s does not answer, skipping: %v", what, err)
	}
	return db
}

func mustExec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// shop creates the tables the serve tests use: products (with a natural
// key and a cost the config hides), customers, and a table with no
// primary key.
func (d *testDB) shop(t testing.TB) {
	t.Helper()
	id := map[string]string{
		"sqlite":   "INTEGER PRIMARY KEY",
		"postgres": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
		"mysql":    "BIGINT AUTO_INCREMENT PRIMARY KEY",
	}[d.engine]
	text := "TEXT"
	if d.engine == "mysql" {
		text = "VARCHAR(200)"
	}
	mustExec(t, d.db,
		"CREATE TABLE products (id "+id+", sku "+text+" NOT NULL UNIQUE, name "+text+" NOT NULL, description "+text+", price DECIMAL(10,2) NOT NULL, cost_price DECIMAL(10,2))",
		"CREATE TABLE customers (id "+id+", email "+text+" NOT NULL UNIQUE, name "+text+")",
		"CREATE TABLE visits (day "+text+", hits INTEGER)",
		"INSERT INTO products (sku, name, description, price, cost_price) VALUES ('MUG-1', 'Blue mug', 'A stoneware mug, 30 cl', 9.50, 2.10), ('TEE-2', 'Red shirt', '100% cotton_blend', 20.00, 8.00), ('MUG-3', 'Green mug', NULL, 11.00, 2.50)",
		"INSERT INTO customers (email, name) VALUES ('ada@example.com', 'Ada')",
	)
}

// readTools are the tools of the shop read-only, sorted.
var readTools = []string{"get_customer", "get_product", "list_customers", "list_products", "list_visits"}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
