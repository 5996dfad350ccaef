package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the SQLite driver, registered as "sqlite"
)

// The file's identity: PRAGMA application_id marks a shop database
// ('FDMO'), and PRAGMA user_version is its schema's version. A file with
// another application id, or another version, is refused, never changed.
const (
	applicationID = 0x46444d4f
	SchemaVersion = 1
)

// schemaSQL creates the shop's tables. Money is in cents and times are
// RFC 3339 text in UTC, so text order is time order.
var schemaSQL = []string{
	`CREATE TABLE products (
		id INTEGER PRIMARY KEY,
		sku TEXT NOT NULL UNIQUE,
		name TEXT NOT NULL,
		description TEXT NOT NULL,
		category TEXT NOT NULL,
		price_cents INTEGER NOT NULL CHECK (price_cents > 0),
		stock INTEGER NOT NULL CHECK (stock >= 0),
		reorder_level INTEGER NOT NULL CHECK (reorder_level >= 0))`,
	`CREATE TABLE customers (
		id INTEGER PRIMARY KEY,
		email TEXT NOT NULL UNIQUE,
		name TEXT NOT NULL,
		city TEXT NOT NULL,
		country TEXT NOT NULL,
		since TEXT NOT NULL)`,
	`CREATE TABLE orders (
		id INTEGER PRIMARY KEY,
		customer_id INTEGER NOT NULL REFERENCES customers(id),
		status TEXT NOT NULL CHECK (status IN ('placed', 'shipped', 'cancelled')),
		placed_at TEXT NOT NULL,
		total_cents INTEGER NOT NULL CHECK (total_cents >= 0),
		idempotency_key TEXT UNIQUE)`,
	`CREATE INDEX orders_by_customer ON orders (customer_id, id)`,
	`CREATE TABLE order_lines (
		order_id INTEGER NOT NULL REFERENCES orders(id),
		line INTEGER NOT NULL,
		product_id INTEGER NOT NULL REFERENCES products(id),
		qty INTEGER NOT NULL CHECK (qty > 0),
		unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents > 0),
		PRIMARY KEY (order_id, line))`,
	`CREATE TABLE order_events (
		id INTEGER PRIMARY KEY,
		order_id INTEGER NOT NULL REFERENCES orders(id),
		at TEXT NOT NULL,
		event TEXT NOT NULL CHECK (event IN ('placed', 'shipped', 'cancelled')),
		note TEXT NOT NULL)`,
	`CREATE INDEX order_events_by_order ON order_events (order_id, id)`,
}

// ErrNotShopDatabase reports a file that is not a shop database: another
// program's SQLite file, a file that is not SQLite at all, or a shop
// database of another schema version. The file is left as it is.
var ErrNotShopDatabase = errors.New("shop: not a demo shop database")

// Open opens the shop database at path, creating and seeding it first if
// no file is there. Seeding writes a line to progress (which may be nil)
// when it starts and when it ends. An existing file is checked, never
// changed before it passes: one that is not a shop database of
// [SchemaVersion] is refused with an error wrapping [ErrNotShopDatabase].
// The new file is seeded under a temporary name and moved into place only
// when complete, so an interrupted first start leaves no half-seeded
// database; the temporary files such a start leaves are removed by a
// later one once they are [staleSeed] old. The path may hold any
// character, % ? and # included.
func Open(ctx context.Context, path string, progress io.Writer) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("shop: no database path")
	}
	removeStaleSeeds(path)
	switch _, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		if target, err := os.Readlink(path); err == nil {
			return nil, fmt.Errorf("shop: %s is a symbolic link to %s, which does not exist; create the directory it names or pass another --db", path, target)
		}
		if err := create(ctx, path, progress); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, fmt.Errorf("shop: %w", err)
	}
	if err := verify(ctx, path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(path, "&_pragma=journal_mode(WAL)"))
	if err != nil {
		return nil, fmt.Errorf("shop: opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("shop: opening %s: %w", path, err)
	}
	return db, nil
}

// dsn is the driver's name of the file at path: foreign keys on, and a
// writer waits for another up to five seconds instead of failing. The
// name is an SQLite URI, so the path is made absolute (a leading // would
// name a host) and its %, ? and # are escaped: each would otherwise make
// SQLite open another file than the one path names.
func dsn(path, extra string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "file:" + uriEscaper.Replace(filepath.ToSlash(path)) + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)" + extra
}

// uriEscaper escapes what an SQLite URI's path gives a meaning to.
var uriEscaper = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// verify checks that path is a shop database of this schema version,
// opening it read-only, and that this process may write it.
func verify(ctx context.Context, path string) error {
	if fi, err := os.Stat(path); err != nil {
		return fmt.Errorf("shop: %w", err)
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrNotShopDatabase, path)
	} else if fi.Size() == 0 {
		return fmt.Errorf("%w: %s is empty; remove it to have the demo create and seed it", ErrNotShopDatabase, path)
	}
	// Before SQLite reads it: a WAL file SQLite may not write fails to
	// open read-only too, with an error that blames the file's format.
	if err := checkWritable(path); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", dsn(path, "&mode=ro"))
	if err != nil {
		return fmt.Errorf("shop: opening %s: %w", path, err)
	}
	defer db.Close()
	var app, version int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return fmt.Errorf("%w: %s cannot be read as SQLite (%w); move it away or pass another --db", ErrNotShopDatabase, path, err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("%w: %s cannot be read as SQLite (%w); move it away or pass another --db", ErrNotShopDatabase, path, err)
	}
	switch {
	case app != applicationID:
		return fmt.Errorf("%w: %s is another program's SQLite database (application_id %#x); pass another --db, it is left as it is", ErrNotShopDatabase, path, app)
	case version != SchemaVersion:
		return fmt.Errorf("%w: %s has schema version %d and this demo needs %d; remove it to have it created again", ErrNotShopDatabase, path, version, SchemaVersion)
	}
	return nil
}

// checkWritable refuses a file this process may not write: the shop
// writes every order to it, so it would start and then fail each one.
func checkWritable(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0) //nolint:gosec // the path the user named with --db, opened to learn if it is writable
	if err != nil {
		return fmt.Errorf("shop: %s cannot be written (%w): the demo writes orders and stock to it; make it writable or pass another --db", path, err)
	}
	return f.Close()
}

// create seeds a new database under a temporary name next to path and
// moves it to path. It does not replace a file that appeared meanwhile.
func create(ctx context.Context, path string, progress io.Writer) error {
	if progress == nil {
		progress = io.Discard
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("shop: %w", err)
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".seeding-*")
	if err != nil {
		return fmt.Errorf("shop: %w", err)
	}
	tmp := f.Name()
	_ = f.Close()
	defer func() { _ = os.Remove(tmp) }()
	start := time.Now()
	n := counts()
	fmt.Fprintf(progress, "ferry demo: creating the shop database %s: %d products, %d customers, %d orders...\n",
		path, n.Products, n.Customers, n.Orders)
	if err := seedFile(ctx, tmp); err != nil {
		return fmt.Errorf("shop: seeding %s: %w", path, err)
	}
	// Link fails if path exists: a second demo that seeded at the same
	// time keeps its file, and this one uses it.
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("shop: %w", err)
		}
	}
	fmt.Fprintf(progress, "ferry demo: seeded in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// seedFile creates the schema in the empty file at path and fills it.
func seedFile(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", dsn(path, ""))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, s := range schemaSQL {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	if err := seed(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if err := createSearchIndexes(ctx, db); err != nil {
		return err
	}
	// Marked last: a file without these is never taken for a shop.
	_, err = db.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", applicationID, SchemaVersion))
	return err
}

// staleSeed is the age after which a temporary file of create is taken
// for one a killed start left, not one another start is seeding now
// (which takes well under a second).
const staleSeed = 10 * time.Minute

// removeStaleSeeds removes the temporary files, and their journals, that
// starts killed while seeding path left, so that they do not pile up.
// It is best effort: a file it cannot remove stays.
func removeStaleSeeds(path string) {
	// The pattern is path's own base with a fixed suffix: a name with
	// glob characters matches itself only after escaping.
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), globEscaper.Replace(filepath.Base(path))+".seeding-*"))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleSeed {
			_ = os.Remove(m)
		}
	}
}

// globEscaper escapes what [filepath.Match] gives a meaning to.
var globEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
