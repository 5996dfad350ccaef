package entity_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/ferry-mcp/ferry/entity"
	_ "modernc.org/sqlite"
)

func ExampleCreateSearchIndex() {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:search?mode=memory")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{
		`CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT)`,
		`INSERT INTO products (name, description) VALUES ('Claw hammer', 'Drives nails.'), ('Hand saw', 'Cuts wood.')`,
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			log.Fatal(err)
		}
	}
	entities, err := entity.Introspect(ctx, db, entity.SQLite, nil)
	if err != nil {
		log.Fatal(err)
	}
	products := entities[0]

	// A migration step, run on purpose: the FTS5 table and its triggers.
	searcher, err := entity.CreateSearchIndex(ctx, db, entity.SQLite, products,
		&entity.SearchIndexOptions{Fields: []string{"name", "description"}})
	if err != nil {
		log.Fatal(err)
	}

	// What the list tool does with a search argument.
	var args []any
	cond, rank, err := searcher.Match(products, "p", "nails", func(v any) string {
		args = append(args, v)
		return "?"
	})
	if err != nil {
		log.Fatal(err)
	}
	var name string
	err = db.QueryRowContext(ctx, "SELECT p.name FROM products p WHERE "+cond+" ORDER BY "+rank, args...).Scan(&name)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(name)

	// A program serving an existing database finds the index again.
	found, err := entity.FindSearchIndex(ctx, db, entity.SQLite, products)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%T %q\n", found, found.(*entity.FTS5Searcher).Fields)
	// Output:
	// Claw hammer
	// *entity.FTS5Searcher ["name" "description"]
}
