package dsn

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/entity"
)

// A SQLite path with characters a URI reads as syntax opens that very
// file, read-only unless writes are asked for, and a missing file is an
// error rather than a new empty database.
func TestSQLitePathIsTheFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd ?dir#%41")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "shop?.db")
	_, err := Parse(path, &Options{Writes: true})
	if err == nil {
		t.Fatalf("Parse(%q) of a missing file: no error", path)
	}
	if !strings.Contains(err.Error(), "never creates") {
		t.Errorf("missing file: %v; want it to say it never creates one", err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{path, "file:" + strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(path, "%", "%25"), "?", "%3F"), "#", "%23")} {
		w, err := Parse(raw, &Options{Writes: true})
		if err != nil {
			t.Fatalf("Parse(%q): %v", raw, err)
		}
		if w.Engine != entity.SQLite || w.Display != path {
			t.Errorf("Parse(%q) = %s %q; want sqlite %q", raw, w.Engine, w.Display, path)
		}
		db, err := w.Open()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY)"); err != nil {
			t.Fatalf("write through %q: %v", raw, err)
		}
		_ = db.Close()
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "shop?.db" {
		t.Errorf("files in %s: %v; want only shop?.db", dir, entries)
	}

	ro, err := Parse(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	db, err := ro.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), "INSERT INTO t DEFAULT VALUES"); err == nil {
		t.Error("a read-only SQLite database took an insert")
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Errorf("read-only SQLite cannot read: %v", err)
	}
}

func TestParseRefusesBadURLs(t *testing.T) {
	const pw = "s3cr3t-Pa55"
	for _, tt := range []struct{ raw, want string }{
		{"", "no database URL"},
		{":memory:", "in-memory SQLite database would be empty"},
		{"file:x?mode=memory&cache=shared", `parameter "mode"`},
		{"root:" + pw + "@tcp(127.0.0.1:3306)/test", "go-sql-driver DSN: give a URL"},
		{"host=127.0.0.1 user=postgres password=" + pw + " dbname=test", "key=value DSN: give a URL"},
		{"mongodb://x/y", `unsupported database scheme "mongodb"`},
		{"postgres://user:" + pw + "@/db", "no host"},
		{"postgres://user:" + pw + "@db.example/db?host=/tmp/elsewhere", "names its host twice"},
		{"postgres://user:" + pw + "@host:5432", "no database"},
		{"postgres://user:" + pw + "@host:99999/db", "not valid"},
		{"mysql://user:" + pw + "@host:3306", "no database"},
		{"mysql://user:" + pw + "@host:3306/a/b", "more than one path segment"},
		{"mysql://:" + pw + "@host:3306/db", "no user"},
		{"mysql://user:" + pw + "@host/db?multiStatements=true", `parameter "multiStatements"`},
		{"mysql://user:" + pw + "@host/db?allowAllFiles=true", `parameter "allowAllFiles"`},
		{"mysql://user:" + pw + "@host/db?tls=maybe", `tls="maybe"`},
		{"mysql://user:" + pw + "@host/db?charset=utf8;drop", "malformed"},
		{"mysql://user:" + pw + "@host/db?charset=utf8%27", "not a character set"},
		{"mysql://user:" + pw + "@host:3306/db%zz", "malformed"},
		{"file://otherhost/x.db", `not host "otherhost"`},
		{"file:x.db?mode=rwc", `parameter "mode"`},
		{"postgres://user:" + pw + "@host/db\n", "control character"},
		// A runtime parameter is a session setting, and PostgreSQL's names
		// fold case: these would undo read-only (pgx sends both spellings).
		{"postgres://user:" + pw + "@host/db?DEFAULT_TRANSACTION_READ_ONLY=off", "sets DEFAULT_TRANSACTION_READ_ONLY"},
		{"postgres://user:" + pw + "@host/db?default_transaction_read_only=off", "sets default_transaction_read_only"},
		{"postgres://user:" + pw + "@host/db?Transaction_Read_Only=off", "sets Transaction_Read_Only"},
	} {
		_, err := Parse(tt.raw, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want an error with %q", tt.raw, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("Parse(%q): the error shows the password: %v", tt.raw, err)
		}
	}
}

func TestDisplayRedactsThePassword(t *testing.T) {
	for _, tt := range []struct {
		raw    string
		engine entity.Engine
		want   string
	}{
		{"postgres://app:p%40ss@db.example:5432/shop?sslmode=disable&search_path=sales", entity.PostgreSQL, "postgres://app:xxxxx@db.example:5432/shop?sslmode=disable&search_path=sales"},
		{"postgresql://app@db.example/shop", entity.PostgreSQL, "postgresql://app@db.example/shop"},
		{"postgres://app@db.example/shop?sslmode=disable&password=hunter2", entity.PostgreSQL, "postgres://app@db.example/shop?password=xxxxx&sslmode=disable"},
		{"mysql://root:p%40ss%2Fw%3Ard@127.0.0.1:3306/test", entity.MySQL, "mysql://root:xxxxx@127.0.0.1:3306/test"},
		{"mariadb://root@127.0.0.1/test?tls=false", entity.MySQL, "mariadb://root@127.0.0.1/test?tls=false"},
	} {
		d, err := Parse(tt.raw, &Options{Password: "from-env"})
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.raw, err)
			continue
		}
		if d.Engine != tt.engine || d.Display != tt.want || d.Name == "" || strings.ContainsAny(d.Name, "@:/") {
			t.Errorf("Parse(%q) = %s %q (name %q); want %s %q", tt.raw, d.Engine, d.Display, d.Name, tt.engine, tt.want)
		}
	}
}

// A PostgreSQL database opened without writes starts its sessions
// read-only, and keeps the URL's search_path; with writes it does not.
func TestPostgresSessionSettings(t *testing.T) {
	base := os.Getenv("FERRY_TEST_PG")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	for _, writes := range []bool{false, true} {
		d, err := Parse(base+"&search_path=ferry_dsn_nowhere", &Options{Writes: writes})
		if err != nil {
			t.Fatal(err)
		}
		db, err := d.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var ro, path string
		if err := db.QueryRowContext(ctx, "SELECT current_setting('default_transaction_read_only'), current_setting('search_path')").Scan(&ro, &path); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("PostgreSQL does not answer (CI is set): %v", err)
			}
			t.Skipf("PostgreSQL does not answer: %v", err)
		}
		want := map[bool]string{false: "on", true: "off"}[writes]
		if ro != want || path != "ferry_dsn_nowhere" {
			t.Errorf("writes %v: default_transaction_read_only %s, search_path %s; want %s, ferry_dsn_nowhere", writes, ro, path, want)
		}
	}
}

// A MySQL database opened without writes refuses a write (DDL included)
// on every connection; with writes it takes one.
func TestMySQLSessionReadOnly(t *testing.T) {
	base := os.Getenv("FERRY_TEST_MYSQL_URL")
	if base == "" {
		base = "mysql://root@127.0.0.1:3306/test"
	}
	table := "test.ferry_dsn_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	for _, writes := range []bool{false, true} {
		d, err := Parse(base, &Options{Writes: writes})
		if err != nil {
			t.Fatal(err)
		}
		db, err := d.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := db.PingContext(ctx); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("MariaDB does not answer (CI is set): %v", err)
			}
			t.Skipf("MariaDB does not answer: %v", err)
		}
		_, err = db.ExecContext(ctx, "CREATE TABLE "+table+" (id INT)")
		switch {
		case !writes && (err == nil || !strings.Contains(err.Error(), "READ ONLY")):
			t.Errorf("read-only: CREATE TABLE = %v; want a read-only refusal", err)
		case writes && err != nil:
			t.Errorf("with writes: CREATE TABLE: %v", err)
		}
		if err == nil {
			if _, err := db.ExecContext(ctx, "DROP TABLE "+table); err != nil {
				t.Errorf("drop %s: %v", table, err)
			}
		}
	}
}

// Parse never panics, and a password in a URL never shows in its error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"postgres://u@h:5432/d?sslmode=disable", "mysql://u@h/d?tls=true", "file:x.db", "shop.db", "postgres://u@h:99999/d", "mysql://u@[::1/d"} {
		f.Add(s)
	}
	const pw = "Zq9-secret-Xw7"
	f.Fuzz(func(t *testing.T, raw string) {
		_, _ = Parse(raw, nil)
		for _, scheme := range []string{"postgres://u:", "mysql://u:"} {
			_, err := Parse(scheme+pw+"@"+raw, nil)
			if err != nil && strings.Contains(err.Error(), pw) {
				t.Fatalf("Parse(%q): the error shows the password: %v", scheme+pw+"@"+raw, err)
			}
		}
	})
}

// A Unix socket is named by the host parameter, the URL having no host,
// as libpq and pgx take it.
func TestPostgresUnixSocket(t *testing.T) {
	const dir = "/var/run/postgresql"
	d, err := Parse("postgres://postgres@/test?host="+dir+"&sslmode=disable", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "test" || !strings.Contains(d.Display, "host="+dir) {
		t.Errorf("Name %q, Display %q; want test and the socket directory shown", d.Name, d.Display)
	}
	if _, err := os.Stat(dir + "/.s.PGSQL.5432"); err != nil {
		t.Skipf("no PostgreSQL socket in %s: %v", dir, err)
	}
	db, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ro string
	if err := db.QueryRow("SHOW default_transaction_read_only").Scan(&ro); err != nil || ro != "on" {
		t.Errorf("over the socket: default_transaction_read_only %q, %v; want on", ro, err)
	}
}

// immutable=1 tells SQLite that nothing changes the file, so it takes no
// locks: fine for reading, a corruption risk with writes, which it refuses.
func TestSQLiteImmutableIsReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("file:"+path+"?immutable=1", nil); err != nil {
		t.Errorf("immutable=1 read-only: %v", err)
	}
	if _, err := Parse("file:"+path+"?immutable=1", &Options{Writes: true}); err == nil || !strings.Contains(err.Error(), "immutable") {
		t.Errorf("immutable=1 with writes = %v; want a refusal naming immutable", err)
	}
}

// A SQLite connection waits Options.BusyTimeout for another's lock, and
// SQLiteBusyTimeout milliseconds when it is zero.
func TestSQLiteBusyTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		opts *Options
		want int
	}{
		{nil, SQLiteBusyTimeout},
		{&Options{BusyTimeout: 1500 * time.Millisecond}, 1500},
		{&Options{BusyTimeout: time.Microsecond}, 1},
	} {
		d, err := Parse(path, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		db, err := d.Open()
		if err != nil {
			t.Fatal(err)
		}
		var busy int
		if err := db.QueryRow("PRAGMA busy_timeout").Scan(&busy); err != nil || busy != tt.want {
			t.Errorf("Parse(%+v): busy_timeout %d, %v; want %d", tt.opts, busy, err, tt.want)
		}
		_ = db.Close()
	}
}

// A handle holds at most MaxConns connections: by default ServerMaxConns
// on a server engine and, on SQLite, twice GOMAXPROCS and at least 4.
func TestOpenBoundsConnections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		raw      string
		opts     *Options
		maxConns int
	}{
		{"postgres://app@db.internal/shop", nil, ServerMaxConns},
		{"mysql://app@db.internal/shop", nil, ServerMaxConns},
		{"postgres://app@db.internal/shop", &Options{MaxConns: 3}, 3},
		{path, nil, max(4, 2*runtime.GOMAXPROCS(0))},
		{path, &Options{MaxConns: 2}, 2},
	} {
		d, err := Parse(tt.raw, tt.opts)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.raw, err)
		}
		db, err := d.Open()
		if err != nil {
			t.Fatal(err)
		}
		if got := db.Stats().MaxOpenConnections; d.MaxConns != tt.maxConns || got != tt.maxConns {
			t.Errorf("Parse(%q, %+v): MaxConns %d, the handle's bound %d; want %d", tt.raw, tt.opts, d.MaxConns, got, tt.maxConns)
		}
		_ = db.Close()
	}
	if _, err := Parse(path, &Options{MaxConns: -1}); err == nil {
		t.Error("Parse with MaxConns -1: no error")
	}
}
