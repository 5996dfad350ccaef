package entity_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// concurrentWriters is how many calls of each write tool run at once in
// the concurrency tests.
const concurrentWriters = 30

// callOutcome is one concurrent call's result, read without failing the
// test from the goroutine that made it.
type callOutcome struct {
	text    string
	isError bool
	err     error
	took    time.Duration
}

// failure says how a call failed.
func (o callOutcome) failure() string {
	if o.err != nil {
		return o.err.Error()
	}
	return o.text
}

// callAsync calls a tool from any goroutine, as the tenant's connection
// made on the test's goroutine (by serve, or an earlier call): unlike
// client.call, it reports a failure in the outcome instead of ending the
// test.
func (c *client) callAsync(name, args string) callOutcome {
	start := time.Now()
	fc := c.conns[c.tenant]
	if fc == nil {
		return callOutcome{err: fmt.Errorf("%s: no connection as tenant %q: call conn first, on the test's goroutine", name, c.tenant)}
	}
	var r result
	params := map[string]any{"name": name, "arguments": json.RawMessage(args)}
	if err := fc.Raw().Call(context.Background(), "tools/call", params, &r); err != nil {
		return callOutcome{err: fmt.Errorf("%s: %w", name, err)}
	}
	return callOutcome{text: r.text(), isError: r.IsError, took: time.Since(start)}
}

// writeStorm runs, all at once, concurrentWriters update_product calls
// on one product and as many delete_product calls on products of their
// own, and returns the failures and the longest call.
func writeStorm(t *testing.T, c *client, updateID int64, deleteIDs []int64) (failures []string, longest time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex // guards failures and longest
	start := make(chan struct{})
	run := func(name, args string) {
		wg.Go(func() {
			<-start
			o := c.callAsync(name, args)
			mu.Lock()
			defer mu.Unlock()
			longest = max(longest, o.took)
			switch {
			case o.err != nil:
				failures = append(failures, name+": "+o.err.Error())
			case o.isError:
				failures = append(failures, name+": "+o.text)
			}
		})
	}
	for i := range concurrentWriters {
		run("update_product", fmt.Sprintf(`{"id":%d,"stock":%d}`, updateID, i))
		run("delete_product", fmt.Sprintf(`{"id":%d}`, deleteIDs[i]))
	}
	close(start)
	wg.Wait()
	slices.Sort(failures)
	return failures, longest
}

// Concurrent writes wait for each other and all succeed, on every
// engine: on SQLite a transaction that reads the row first and then needs
// the write lock must not be refused with SQLITE_BUSY (which SQLite
// returns at once, without the busy handler, to a deferred transaction
// that would deadlock). The database pools of the server engines are
// bounded, as the package documents.
func TestConcurrentWritesAllSucceed(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		engine := detect(t, db)
		if engine != entity.SQLite {
			db.SetMaxOpenConns(8)
		}
		logs := new(ferrytest.Buffer)
		// One caller makes every call: its limits must admit them all.
		srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{
			Logger: slog.New(slog.NewTextHandler(logs, nil)),
			Limits: ferry.Limits{MaxCallsPerCaller: 2 * concurrentWriters, CallRate: -1},
		})
		c, _ := shopOn(t, srv, db, nil, nil)
		var updateID int64
		deleteIDs := make([]int64, concurrentWriters)
		for i := range concurrentWriters + 1 {
			out := c.ok("create_product", fmt.Sprintf(`{"sku":"P-%d","name":"Product %d"}`, i, i))
			var rec struct {
				Data struct {
					ID int64 `json:"id"`
				} `json:"data"`
			}
			if err := json.Unmarshal(out, &rec); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				updateID = rec.Data.ID
			} else {
				deleteIDs[i-1] = rec.Data.ID
			}
		}
		failures, longest := writeStorm(t, c, updateID, deleteIDs)
		t.Logf("%s: %d of %d concurrent writes succeeded; the longest call took %s",
			engine, 2*concurrentWriters-len(failures), 2*concurrentWriters, longest.Round(time.Millisecond))
		if len(failures) > 0 {
			t.Errorf("%d of %d concurrent writes failed, first: %s\nlog: %s", len(failures), 2*concurrentWriters, failures[0], firstError(logs.String()))
		}
		if n := count(t, db, "products", ""); n != 1 {
			t.Errorf("%d products left after the deletes; want 1", n)
		}
	})
}

// firstError is the first line of a log at level ERROR, or "none".
func firstError(log string) string {
	for line := range strings.Lines(log) {
		if strings.Contains(line, "level=ERROR") {
			return strings.TrimSpace(line)
		}
	}
	return "none"
}

// detect names db's engine the way NewSet tells it.
func detect(t *testing.T, db *sql.DB) entity.Engine {
	t.Helper()
	name := fmt.Sprintf("%T", db.Driver())
	switch {
	case strings.Contains(name, "sqlite"):
		return entity.SQLite
	case strings.Contains(name, "mysql"):
		return entity.MySQL
	}
	return entity.PostgreSQL
}

// openSQLite opens the SQLite file path with the DSN parameters given,
// closed when the test ends.
func openSQLite(t *testing.T, path, params string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?"+params)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// Writes through two Sets on one SQLite file, each with a database handle
// of its own as two processes would have, wait for each other under
// busy_timeout and all succeed: each begins with BEGIN IMMEDIATE, which
// waits for the write lock, where a deferred transaction that read first
// is refused it at once.
func TestSQLiteWritesOfTwoHandlesAllSucceed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.db")
	params := "_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)"
	setup := openSQLite(t, path, params)
	for _, q := range productDDL["sqlite"] {
		if _, err := setup.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := setup.Exec(`INSERT INTO products (id, sku, name) VALUES (1, 'P-1', 'One')`); err != nil {
		t.Fatal(err)
	}
	a, _ := shop(t, openSQLite(t, path, params), nil, nil)
	b, _ := shop(t, openSQLite(t, path, params), nil, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex // guards failures
	var failures []string
	for i := range concurrentWriters {
		c := a
		if i%2 == 1 {
			c = b
		}
		wg.Go(func() {
			o := c.callAsync("update_product", fmt.Sprintf(`{"id":1,"stock":%d}`, i))
			if o.err != nil || o.isError {
				mu.Lock()
				failures = append(failures, o.failure())
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d of %d writes through two handles failed, first: %s", len(failures), concurrentWriters, failures[0])
	}
}

// A SQLite write that waits for its turn past the call's deadline is
// refused as unavailable, saying why, and writes after it succeed.
func TestSQLiteWriteWaitPastDeadlineIsUnavailable(t *testing.T) {
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO products (id, sku, name) VALUES (1, 'P-1', 'One'), (2, 'P-2', 'Two')`); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hooks := entity.Hooks{BeforeUpdate: func(ctx context.Context, w *entity.Write) error {
		if w.Old["sku"] == "P-1" {
			once.Do(func() { close(entered) })
			<-release
		}
		return nil
	}}
	c, _ := shop(t, db, &entity.SetOptions{Timeout: 300 * time.Millisecond}, &entity.Options{Hooks: hooks})
	held := make(chan callOutcome, 1)
	go func() { held <- c.callAsync("update_product", `{"id":1,"stock":1}`) }()
	<-entered
	got := c.callAsync("update_product", `{"id":2,"stock":2}`)
	close(release)
	if first := <-held; first.err != nil {
		t.Fatal(first.err)
	}
	want := "unavailable: other writes kept the database busy until this call's deadline"
	if got.err != nil || !got.isError || !strings.HasPrefix(got.text, want) || !strings.Contains(got.text, "try again later") {
		t.Errorf("a write waiting past its deadline = %q, %v; want %q...", got.text, got.err, want)
	}
	if after := c.callAsync("update_product", `{"id":2,"stock":3}`); after.err != nil || after.isError {
		t.Errorf("a write after the wait: %q %v", after.text, after.err)
	}
}

// A SQLite database opened without busy_timeout, locked by another
// writer, refuses a write as unavailable with a sentence, not as a
// failure of the tool.
func TestSQLiteLockedWithoutBusyTimeoutIsUnavailable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.db")
	db := openSQLite(t, path, "_pragma=foreign_keys(1)")
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO products (id, sku, name) VALUES (1, 'P-1', 'One')`); err != nil {
		t.Fatal(err)
	}
	c, _ := shop(t, db, nil, nil)
	other := openSQLite(t, path, "")
	lock, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	got := c.callAsync("update_product", `{"id":1,"stock":1}`)
	if _, err := lock.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if got.err != nil || !got.isError || !strings.HasPrefix(got.text, "unavailable: ") || !strings.Contains(got.text, "try again") {
		t.Errorf("a write on a locked database = %q, %v; want unavailable with a sentence", got.text, got.err)
	}
}

// Reads on SQLite are not queued behind a write: while a write holds the
// write lock, a get and a list succeed, also when the DSN asks
// modernc.org/sqlite for IMMEDIATE transactions (_txlock=immediate).
func TestSQLiteReadsDuringAWrite(t *testing.T) {
	for _, params := range []string{"", "&_txlock=immediate"} {
		t.Run("params="+params, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "shop.db")
			db := openSQLite(t, path, "_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)"+params)
			for _, q := range productDDL["sqlite"] {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.Exec(`INSERT INTO products (id, sku, name) VALUES (1, 'P-1', 'One')`); err != nil {
				t.Fatal(err)
			}
			entered, release := make(chan struct{}), make(chan struct{})
			hooks := entity.Hooks{BeforeUpdate: func(ctx context.Context, w *entity.Write) error {
				close(entered)
				<-release
				return nil
			}}
			c, _ := shop(t, db, &entity.SetOptions{Timeout: 2 * time.Second}, &entity.Options{Hooks: hooks})
			held := make(chan callOutcome, 1)
			go func() { held <- c.callAsync("update_product", `{"id":1,"stock":1}`) }()
			<-entered
			get := c.callAsync("get_product", `{"id":1}`)
			list := c.callAsync("list_products", `{}`)
			close(release)
			if w := <-held; w.err != nil || w.isError {
				t.Errorf("the write: %s", w.failure())
			}
			for name, o := range map[string]callOutcome{"get_product": get, "list_products": list} {
				if o.err != nil || o.isError {
					t.Errorf("%s during a write: %s", name, o.failure())
				}
			}
		})
	}
}

// A SQLite write whose hook panics leaves no transaction open on the
// connection it hands back: the next write, on the same connection,
// succeeds.
func TestSQLiteWriteAfterAPanickingHook(t *testing.T) {
	db := dbtest.SQLite(t)
	db.SetMaxOpenConns(1)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO products (id, sku, name) VALUES (1, 'P-1', 'One')`); err != nil {
		t.Fatal(err)
	}
	hooks := entity.Hooks{BeforeUpdate: func(ctx context.Context, w *entity.Write) error {
		if w.Values["name"] == "boom" {
			panic("a hook's bug")
		}
		return nil
	}}
	c, _ := shop(t, db, nil, &entity.Options{Hooks: hooks})
	if got := c.callAsync("update_product", `{"id":1,"name":"boom"}`); got.err != nil || !got.isError {
		t.Fatalf("the panicking update: %q %v; want a failure", got.text, got.err)
	}
	if got := c.callAsync("update_product", `{"id":1,"name":"Fine"}`); got.err != nil || got.isError {
		t.Errorf("the update after: %s", got.failure())
	}
	if n := count(t, db, "products", "name = 'Fine'"); n != 1 {
		t.Errorf("the update after the panic did not commit: %d rows", n)
	}
}

// A call that waits for a connection of a bounded pool past its deadline
// is refused as unavailable, saying the connections were all busy and to
// try again later, on every engine; once a connection is free, calls
// succeed again.
func TestPoolWaitPastDeadlineIsUnavailable(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		if _, err := db.Exec(`INSERT INTO products (sku, name) VALUES ('P-1', 'One')`); err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		c, _ := shop(t, db, &entity.SetOptions{Timeout: 200 * time.Millisecond}, nil)
		held, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []struct{ name, args string }{
			{"list_products", `{}`},
			{"get_product", `{"sku":"P-1"}`},
			{"update_product", `{"sku":"P-1","stock":1}`},
		} {
			got := c.callAsync(call.name, call.args)
			want := "unavailable: all 1 database connections of this server stayed busy with other calls until this call's deadline; try again later"
			if got.err != nil || !got.isError || !strings.HasPrefix(got.text, want) {
				t.Errorf("%s with the only connection held: %q %v; want %q...", call.name, got.text, got.err, want)
			}
		}
		_ = held.Close()
		if got := c.callAsync("update_product", `{"sku":"P-1","stock":2}`); got.err != nil || got.isError {
			t.Errorf("a call once the connection is free: %s", got.failure())
		}
	})
}

func TestReadOnlyTransactionHolds(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		var hookErr error
		opts := &entity.Options{Hooks: entity.Hooks{BeforeRead: func(ctx context.Context, r *entity.Read) error {
			_, hookErr = r.Tx.ExecContext(ctx, "INSERT INTO categories (name) VALUES ('sneaky')")
			return hookErr
		}}}
		c, _ := shop(t, db, nil, opts)
		c.refused("list_products", `{}`)
		if hookErr == nil {
			t.Error("a write inside list's transaction succeeded")
		}
		hookErr = nil
		c.refused("get_product", `{"id":1}`)
		if hookErr == nil {
			t.Error("a write inside get's transaction succeeded")
		}
		if n := count(t, db, "categories", ""); n != 0 {
			t.Errorf("%d categories written by a read tool", n)
		}
		// The connection went back to the pool writable.
		for range 5 {
			c.ok("create_category", `{"name":"`+t.Name()+`-`+string(rune('a'+count(t, db, "categories", "")))+`"}`)
		}
	})
}
