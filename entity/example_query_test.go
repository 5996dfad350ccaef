package entity_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

func ExampleSet_AddQuery() {
	db, done := exampleDB()
	defer done()
	if _, err := db.Exec(`INSERT INTO items (sku, name, price) VALUES ('A-1', 'Hammer', 12.5), ('A-2', 'Saw', 20), ('A-3', 'Nail', 0.1)`); err != nil {
		log.Fatal(err)
	}
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		log.Fatal(err)
	}
	queries, err := entity.ParseQueries("items.sql", `
-- name: items_under :many
-- Items cheaper than a price, cheapest first.
-- @param price number minimum:"0" The price items must be under.
SELECT sku, name, price FROM items WHERE price < @price ORDER BY price
`)
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range queries {
		// The database prepares and describes each one now.
		if err := set.AddQuery(context.Background(), q); err != nil {
			log.Fatal(err)
		}
	}
	for _, t := range srv.Catalog().Tools() {
		fmt.Println(t.Name, "read-only:", t.ReadOnly)
	}
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	defer ts.Close()
	callTool(ts.URL, "items_under", `{"price":15}`)
	// Output:
	// items_under read-only: true
	// {"data":[{"sku":"A-3","name":"Nail","price":0.1},{"sku":"A-1","name":"Hammer","price":12.5}],"hasMore":false}
}
