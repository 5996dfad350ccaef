package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/ferry-mcp/ferry/entity"
	_ "modernc.org/sqlite" // the SQLite driver, registered as "sqlite"
)

// Category is a group of products.
type Category struct {
	ID   int64  `json:"id" entity:"key" doc:"The category's number."`
	Name string `json:"name" entity:"natural,filter,sort" doc:"The category's name, such as Hand tools." minLength:"1" maxLength:"100"`
}

// Product is a product of the shop.
type Product struct {
	ID          int64     `json:"id" entity:"key" doc:"The product's number."`
	SKU         string    `json:"sku" entity:"natural" doc:"Stock keeping unit, such as HT-001." pattern:"^[A-Z]{2}-[0-9]{3}$"`
	Name        string    `json:"name" entity:"filter,sort,search" doc:"The product's name." minLength:"1" maxLength:"200"`
	Description *string   `json:"description" entity:"search" doc:"What the product is for." maxLength:"2000"`
	Price       float64   `json:"price" entity:"filter,sort" doc:"Price in euros." minimum:"0"`
	Stock       *int64    `json:"stock" entity:"filter,sort" doc:"Units in stock; null when unknown." minimum:"0"`
	CategoryID  int64     `json:"category_id" entity:"filter" ref:"category" doc:"The product's category."`
	CreatedAt   time.Time `json:"created_at" entity:"filter,sort,default" doc:"When the product was added."`
}

// schemaSQL creates the shop's tables. created_at defaults to the time in
// the layout entity tools write ([entity.SQLiteTimeLayout]), so that
// rows written either way sort together.
var schemaSQL = []string{
	`CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
	`CREATE TABLE products (
		id INTEGER PRIMARY KEY,
		sku TEXT NOT NULL UNIQUE,
		name TEXT NOT NULL,
		description TEXT,
		price REAL NOT NULL CHECK (price >= 0),
		stock INTEGER CHECK (stock >= 0),
		category_id INTEGER NOT NULL REFERENCES categories(id),
		created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f000Z', 'now')))`,
}

// openShop opens the SQLite file at path, creating and seeding it first
// if it does not exist.
func openShop(ctx context.Context, path string) (*sql.DB, error) {
	_, err := os.Stat(path)
	fresh := errors.Is(err, fs.ErrNotExist)
	if err != nil && !fresh {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	if fresh {
		if err := seed(ctx, db); err != nil {
			_ = db.Close()
			_ = os.Remove(path)
			return nil, fmt.Errorf("seeding %s: %w", path, err)
		}
	}
	return db, db.PingContext(ctx)
}

// seed creates the tables, fills them and, as an explicit migration step,
// creates the products' search index.
func seed(ctx context.Context, db *sql.DB) error {
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
	for i, name := range categories {
		if _, err := tx.ExecContext(ctx, "INSERT INTO categories (id, name) VALUES (?, ?)", i+1, name); err != nil {
			return err
		}
	}
	for i, p := range seedProducts() {
		_, err := tx.ExecContext(ctx, `INSERT INTO products (sku, name, description, price, stock, category_id, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?)`, p.SKU, p.Name, p.Description, p.Price, p.Stock, p.CategoryID,
			seedTime.Add(time.Duration(i)*time.Hour).Format(entity.SQLiteTimeLayout))
		if err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	e, err := entity.Of[Product]()
	if err != nil {
		return err
	}
	_, err = entity.CreateSearchIndex(ctx, db, entity.SQLite, e, nil)
	return err
}

var categories = []string{"Hand tools", "Power tools", "Fasteners"}

var seedTime = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// seedProducts returns 30 products: ten of each category.
func seedProducts() []Product {
	kinds := [][]string{
		{"hammer", "saw", "chisel", "screwdriver", "wrench", "pliers", "file", "plane", "mallet", "level"},
		{"drill", "sander", "grinder", "jigsaw", "router", "planer", "nailer", "heat gun", "multi-tool", "impact driver"},
		{"wood screw", "nail", "bolt", "nut", "washer", "rivet", "anchor", "staple", "dowel", "hinge pin"},
	}
	prefixes := []string{"HT", "PT", "FA"}
	var out []Product
	for c, names := range kinds {
		for i, n := range names {
			desc := fmt.Sprintf("A %s for the workshop.", n)
			stock := int64((c*10 + i*7) % 25)
			p := Product{
				SKU: fmt.Sprintf("%s-%03d", prefixes[c], i+1), Name: n, Description: &desc,
				Price: float64(5+c*40+i*3) + 0.99, Stock: &stock, CategoryID: int64(c + 1),
			}
			if i == 9 {
				p.Stock = nil // unknown
			}
			out = append(out, p)
		}
	}
	return out
}
