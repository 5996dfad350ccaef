package entity_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/ferry-mcp/ferry"
	mcpclient "github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/entity"
	_ "modernc.org/sqlite"
)

// Item is a record type served as tools.
type Item struct {
	ID    int64   `json:"id" entity:"key"`
	SKU   string  `json:"sku" entity:"natural" maxLength:"20" doc:"The stock keeping unit."`
	Name  string  `json:"name" entity:"filter,sort" minLength:"1"`
	Price float64 `json:"price" entity:"filter,sort" minimum:"0"`
}

// exampleDB opens a SQLite database with an items table in a temporary
// directory; done removes it.
func exampleDB() (db *sql.DB, done func()) {
	dir, err := os.MkdirTemp("", "entity-example")
	if err != nil {
		log.Fatal(err)
	}
	// busy_timeout: a call waits for a lock another connection holds
	// (see NewSet).
	db, err = sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL, price REAL NOT NULL)`); err != nil {
		log.Fatal(err)
	}
	return db, func() { _ = db.Close(); _ = os.RemoveAll(dir) }
}

// callTool calls a tool over the server's HTTP handler, with Ferry's
// client, and prints the result's text.
func callTool(url, name, args string) {
	ctx := context.Background()
	c, err := mcpclient.DialHTTP(ctx, url, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, name, json.RawMessage(args))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
}

func ExampleAdd() {
	db, done := exampleDB()
	defer done()
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := entity.Add[Item](set, nil); err != nil {
		log.Fatal(err)
	}
	for _, t := range srv.Catalog().Tools() {
		fmt.Println(t.Name, "read-only:", t.ReadOnly, "destructive:", t.Destructive)
	}
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	defer ts.Close()
	callTool(ts.URL, "create_item", `{"sku":"A-1","name":"Hammer","price":12.5}`)
	callTool(ts.URL, "create_item", `{"sku":"A-1","name":"Saw","price":20}`)
	callTool(ts.URL, "list_items", `{"filter":"price > 10","orderBy":"price desc"}`)
	callTool(ts.URL, "get_item", `{"sku":"B-7"}`)
	// Output:
	// create_item read-only: false destructive: false
	// delete_item read-only: false destructive: true
	// get_item read-only: true destructive: false
	// list_items read-only: true destructive: false
	// update_item read-only: false destructive: false
	// {"data":{"id":1,"sku":"A-1","name":"Hammer","price":12.5}}
	// conflict: an item with sku "A-1" exists
	// {"data":[{"id":1,"sku":"A-1","name":"Hammer","price":12.5}],"paging":{"totalCount":1,"skip":0,"top":100,"hasMore":false}}
	// not-found: no item with sku "B-7"
}

// A scope keeps every call to the rows of the caller's tenant.
func ExampleScope() {
	scope := &entity.Scope{Field: "tenant_id", Value: func(_ context.Context, p *ferry.Principal) (any, error) {
		if p == nil || p.Claims["tenant"] == nil {
			return nil, ferry.Forbidden("sign in with a tenant")
		}
		return p.Claims["tenant"], nil
	}}
	opts := &entity.Options{Scope: scope}
	fmt.Println(opts.Scope.Field)
	// Output: tenant_id
}

func ExampleOf() {
	e, err := entity.Of[Item]()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Name, e.Plural, e.Table, "key:", e.Key, "natural key:", e.NaturalKey)
	for _, f := range e.Fields {
		fmt.Println(f.Name, f.Type == entity.Text, "filter:", f.Filterable, "generated:", f.Generated)
	}
	// Output:
	// item items items key: id natural key: sku
	// id false filter: true generated: true
	// sku true filter: true generated: false
	// name true filter: true generated: false
	// price false filter: true generated: false
}

// A database with no Go types: its tables, read by Introspect, get the
// same tools.
func ExampleSet_Add() {
	db, done := exampleDB()
	defer done()
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		log.Fatal(err)
	}
	entities, err := entity.Introspect(context.Background(), db, set.Engine(), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entities {
		if _, err := set.Add(e, &entity.Options{Exclude: []entity.Op{entity.Delete}}); err != nil {
			log.Fatal(err)
		}
	}
	set.AddResources("shop")
	for _, t := range srv.Catalog().Tools() {
		fmt.Println(t.Name)
	}
	// Output:
	// create_item
	// get_item
	// list_items
	// update_item
}
