// Package entitybench measures entity tools against the same queries
// written by hand: list_products (100 rows through a filter, from a
// 100,000-row table) and get_product by key, on SQLite and PostgreSQL,
// each through Ferry's HTTP handler in process.
//
// The hand-written tools are raw Ferry tools on the same server, so both
// sides pay the same protocol cost and the ratio is what the entity layer
// adds: argument validation, the CEL filter's translation, the read-only
// transaction and statement timeout, the encoding of records. "hand"
// runs the query alone, as a hand-written tool usually does; "handtx"
// runs it in the same read-only transaction, under the same timeout, as
// the entity tools do, which separates the safety's cost from the rest.
// Both write byte for byte the JSON the entity tools write
// (TestSameAnswers).
//
//	cd bench && go test ./entity -run '^$' -bench . -benchmem -count 6
package entitybench

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// rows is the size of the products table.
const rows = 100_000

// Product is a product as both sides serve it, fields in column order.
type Product struct {
	ID          int64     `json:"id" entity:"key"`
	SKU         string    `json:"sku" entity:"natural"`
	Name        string    `json:"name" entity:"filter,sort"`
	Description *string   `json:"description"`
	Price       float64   `json:"price" entity:"filter,sort,aggregate"`
	Stock       *int64    `json:"stock" entity:"filter,sort"`
	CategoryID  int64     `json:"category_id" entity:"filter" ref:"category"`
	CreatedAt   time.Time `json:"created_at" entity:"filter,sort"`
}

// The list both sides run: entity's filter and the hand-written
// query's parameters mean the same rows.
const (
	listFilter   = `price < 500.0 && category_id == 3`
	listMaxPrice = 500.0
	listCategory = 3
	listTop      = 100
)

// seedSQL fills products with rows deterministic rows: prices spread
// over 0.5 to 999.5, ten categories, every seventh stock unknown.
var seedSQL = map[entity.Engine][]string{
	entity.SQLite: {
		`CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
			description TEXT, price REAL NOT NULL, stock INTEGER, category_id INTEGER NOT NULL, created_at TEXT NOT NULL)`,
		fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
			INSERT INTO products SELECT i, printf('P-%%06d', i), 'product ' || i, 'about product ' || i,
			(i * 37 %% 1000) + 0.5, CASE WHEN i %% 7 = 0 THEN NULL ELSE i %% 50 END, i %% 10 + 1,
			strftime('%%Y-%%m-%%dT%%H:%%M:%%S.000000Z', 1767600000 + i * 60, 'unixepoch') FROM n`, rows),
		`CREATE INDEX products_category ON products (category_id, price)`,
		`CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10)
			INSERT INTO categories SELECT i, 'category ' || i FROM n`,
		`ANALYZE`,
	},
	entity.PostgreSQL: {
		`CREATE TABLE products (id bigint PRIMARY KEY, sku text NOT NULL UNIQUE, name text NOT NULL,
			description text, price double precision NOT NULL, stock bigint, category_id bigint NOT NULL,
			created_at timestamptz NOT NULL)`,
		fmt.Sprintf(`INSERT INTO products SELECT i, 'P-' || lpad(i::text, 6, '0'), 'product ' || i, 'about product ' || i,
			(i * 37 %% 1000) + 0.5, CASE WHEN i %% 7 = 0 THEN NULL ELSE i %% 50 END, i %% 10 + 1,
			to_timestamp(1767600000 + i * 60) FROM generate_series(1, %d) i`, rows),
		`CREATE INDEX products_category ON products (category_id, price)`,
		`ANALYZE products`,
		`CREATE TABLE categories (id bigint PRIMARY KEY, name text NOT NULL)`,
		`INSERT INTO categories SELECT i, 'category ' || i FROM generate_series(1, 10) i`,
	},
}

// fixture is one engine's seeded database and the server serving both
// sides' tools.
type fixture struct {
	engine  entity.Engine
	db      *sql.DB
	handler http.Handler
}

var (
	fixturesMu sync.Mutex
	fixtures   = map[entity.Engine]*fixture{}
	cleanups   []func()
)

// TestMain drops what the fixtures made.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	os.Exit(code)
}

// open returns engine's fixture, seeding it on first use; without the
// server it skips, or fails when CI is set.
func open(tb testing.TB, engine entity.Engine) *fixture {
	tb.Helper()
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if f := fixtures[engine]; f != nil {
		return f
	}
	db, err := openDB(engine)
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("%s: %v", engine, err)
		}
		tb.Skipf("%s does not answer, skipping: %v", engine, err)
	}
	ctx := context.Background()
	for _, s := range seedSQL[engine] {
		if _, err := db.ExecContext(ctx, s); err != nil {
			tb.Fatalf("seeding %s: %v", engine, err)
		}
	}
	h, err := newHandler(db, engine)
	if err != nil {
		tb.Fatal(err)
	}
	f := &fixture{engine: engine, db: db, handler: h}
	fixtures[engine] = f
	return f
}

func openDB(engine entity.Engine) (*sql.DB, error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "ferry_bench_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	switch engine {
	case entity.SQLite:
		dir, err := os.MkdirTemp("", name)
		if err != nil {
			return nil, err
		}
		cleanups = append(cleanups, func() { _ = os.RemoveAll(dir) })
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "bench.db")+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
		if err == nil {
			cleanups = append([]func(){func() { _ = db.Close() }}, cleanups...)
		}
		return db, err
	case entity.PostgreSQL:
		base := os.Getenv("FERRY_TEST_PG")
		if base == "" {
			base = "postgres://root@127.0.0.1:5432/test?sslmode=disable"
		}
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return nil, err
		}
		if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
			_ = admin.Close()
			return nil, err
		}
		db, err := sql.Open("pgx", base+"&search_path="+name)
		cleanups = append(cleanups, func() {
			if db != nil {
				_ = db.Close()
			}
			_, _ = admin.ExecContext(context.Background(), "DROP SCHEMA "+name+" CASCADE")
			_ = admin.Close()
		})
		return db, err
	}
	return nil, fmt.Errorf("no fixture for %s", engine)
}

// newHandler serves the entity tools of Product, searching its name and
// description through a full-text index made here, and the hand-written
// tools, hand_list_products, hand_get_product and their handtx_ twins.
func newHandler(db *sql.DB, engine entity.Engine) (http.Handler, error) {
	srv := ferry.NewServer("bench", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	set, err := entity.NewSet(srv, db, &entity.SetOptions{Engine: engine})
	if err != nil {
		return nil, err
	}
	e, err := entity.Of[Product]()
	if err != nil {
		return nil, err
	}
	searcher, err := entity.CreateSearchIndex(context.Background(), db, engine, e,
		&entity.SearchIndexOptions{Fields: []string{"name", "description"}})
	if err != nil {
		return nil, err
	}
	if _, err := entity.Add[Category](set, nil); err != nil {
		return nil, err
	}
	if _, err := set.Add(e, &entity.Options{Searcher: searcher}); err != nil {
		return nil, err
	}
	h := &hand{db: db, engine: engine}
	for _, tx := range []bool{false, true} {
		prefix := map[bool]string{false: "hand_", true: "handtx_"}[tx]
		srv.AddTool(ferry.Tool{Name: prefix + "list_products", Description: "Lists products by hand.", ReadOnly: true,
			ClosedWorld: true}, h.listTool(tx))
		srv.AddTool(ferry.Tool{Name: prefix + "get_product", Description: "Gets a product by hand.", ReadOnly: true,
			ClosedWorld: true}, h.getTool(tx))
		srv.AddTool(ferry.Tool{Name: prefix + "aggregate_products", Description: "Totals products per category by hand.", ReadOnly: true,
			ClosedWorld: true}, h.aggregateTool(tx))
		srv.AddTool(ferry.Tool{Name: prefix + "list_products_expanded", Description: "Lists products with their category by hand.",
			ReadOnly: true, ClosedWorld: true}, h.expandTool(tx))
	}
	if err := addQueryTools(srv, set, h); err != nil {
		return nil, err
	}
	if err := srv.Check(); err != nil {
		return nil, err
	}
	return ferry.NewHTTPHandler(srv, nil), nil
}

// request is a 2026-07-28 tools/call of tool with args.
func request(tool, args string) (body string, header http.Header) {
	body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	header = http.Header{}
	header.Set("Content-Type", "application/json")
	header.Set("Accept", "application/json, text/event-stream")
	header.Set("MCP-Protocol-Version", "2026-07-28")
	header.Set("Mcp-Method", "tools/call")
	header.Set("Mcp-Name", tool)
	return body, header
}

// serve runs one call through the handler and returns the answer.
func (f *fixture) serve(body string, header http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.Header = header
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec
}
