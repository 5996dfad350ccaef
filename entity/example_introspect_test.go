package entity_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/ferry-mcp/ferry/entity"
	_ "modernc.org/sqlite"
)

func ExampleIntrospect() {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:introspect?mode=memory")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	for _, s := range []string{
		`CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
		`CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
			price DECIMAL(10,2), category_id INTEGER REFERENCES categories(id), picture BLOB)`,
		`CREATE TABLE "order items" (order_id INTEGER, line INTEGER, PRIMARY KEY (order_id, line))`,
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			log.Fatal(err)
		}
	}

	entities, err := entity.Introspect(ctx, db, entity.SQLite, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entities {
		fmt.Printf("%s/%s (table %q) key %q natural key %q\n", e.Name, e.Plural, e.Table, e.Key, e.NaturalKey)
		if e.KeyNote != "" {
			fmt.Println("  read tools only: " + e.KeyNote)
		}
		if e.Description != "" {
			fmt.Println("  " + e.Description)
		}
		for _, f := range e.Fields {
			if f.References != nil {
				fmt.Printf("  %s refers to %s.%s\n", f.Name, f.References.Entity, f.References.Field)
			}
		}
	}
	// Output:
	// category/categories (table "categories") key "id" natural key "name"
	// order_item/order_items (table "order items") key "" natural key ""
	//   read tools only: its primary key has 2 columns (order_id, line)
	// product/products (table "products") key "id" natural key "sku"
	//   Columns left out, their types not served: "picture" (BLOB).
	//   category_id refers to category.id
}
