package entity

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

type benchProduct struct {
	ID    int64   `json:"id" entity:"key"`
	SKU   string  `json:"sku" entity:"natural"`
	Name  string  `json:"name" entity:"filter,sort"`
	Cost  float64 `json:"cost" entity:"filter,sort"`
	Stock *int64  `json:"stock" entity:"filter"`
}

func (benchProduct) TableName() string { return "products" }

func benchDB(b *testing.B, open func(testing.TB) *sql.DB, rows int) *sql.DB {
	db := open(b)
	if _, err := db.Exec(`CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL, cost REAL NOT NULL, stock INTEGER)`); err != nil {
		b.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= rows; i++ {
		if _, err := tx.Exec(`INSERT INTO products (id, sku, name, cost, stock) VALUES ($1, $2, $3, $4, $5)`,
			i, "P-"+strconv.Itoa(i), fmt.Sprintf("Product %d", i), float64(i%1000)/10, i%50); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkList compares list_products (100 rows, a filter, over 100,000)
// with the same query written by hand and encoded the same way.
func BenchmarkList(b *testing.B) {
	db := benchDB(b, dbtest.SQLite, 100_000)
	srv := ferry.NewServer("b", "1", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	set, err := NewSet(srv, db, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Add[benchProduct](set, &Options{SkipTotalCount: true}); err != nil {
		b.Fatal(err)
	}
	t := set.tables[0]
	req := &ferry.CallToolRequest{Name: "list_products", Arguments: json.RawMessage(`{"filter":"cost > 50.0","top":100}`)}
	ctx := context.Background()
	b.Run("tool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if res, err := t.list(ctx, req); err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			rows, err := tx.QueryContext(ctx, `SELECT id, sku, name, cost, stock FROM products WHERE cost > ? ORDER BY id LIMIT ? OFFSET ?`, 50.0, 101, 0)
			if err != nil {
				b.Fatal(err)
			}
			var out []benchProduct
			for rows.Next() {
				var p benchProduct
				if err := rows.Scan(&p.ID, &p.SKU, &p.Name, &p.Cost, &p.Stock); err != nil {
					b.Fatal(err)
				}
				out = append(out, p)
			}
			rows.Close()
			_ = tx.Commit()
			data, _ := json.Marshal(map[string]any{"data": out[:100]})
			_ = ferry.Text(string(data))
		}
	})
}

// BenchmarkGet is get_product by key, the handler called directly.
func BenchmarkGet(b *testing.B) {
	db := benchDB(b, dbtest.SQLite, 1000)
	srv := ferry.NewServer("b", "1", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	set, err := NewSet(srv, db, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Add[benchProduct](set, nil); err != nil {
		b.Fatal(err)
	}
	t := set.tables[0]
	req := &ferry.CallToolRequest{Name: "get_product", Arguments: json.RawMessage(`{"id":543}`)}
	b.ReportAllocs()
	for b.Loop() {
		if res, err := t.get(context.Background(), req); err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
