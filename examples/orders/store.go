package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// Store keeps orders and the ledger in SQLite. It is safe for concurrent
// use, as *sql.DB is.
type Store struct {
	db *sql.DB
}

// Order is an order as the API returns it.
type Order struct {
	ID       string `json:"id" doc:"The order's id."`
	Customer string `json:"customer" doc:"Who ordered."`
	Status   string `json:"status" doc:"Where the order is." enum:"open,shipped,cancelled"`
	Lines    []Line `json:"lines" doc:"What was ordered."`
}

// Line is one line of an order.
type Line struct {
	SKU string `json:"sku" doc:"The product's stock-keeping unit." maxLength:"20"`
	Qty int    `json:"qty" doc:"How many." minimum:"1"`
}

// Errors the handlers turn into problem documents.
var (
	errNotFound = errors.New("orders: no such order")
	errShipped  = errors.New("orders: the order has shipped")
	errLocked   = errors.New("orders: the period is locked")
	errExists   = errors.New("orders: the order exists")
)

const schemaSQL = `
CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, customer TEXT NOT NULL, status TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lines (order_id TEXT NOT NULL REFERENCES orders(id), n INTEGER NOT NULL, sku TEXT NOT NULL, qty INTEGER NOT NULL,
	PRIMARY KEY (order_id, n));
CREATE TABLE IF NOT EXISTS accruals (period TEXT NOT NULL, amount_cents INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS locked_periods (period TEXT PRIMARY KEY);
`

// OpenStore opens (creating if need be) the SQLite database at path.
func OpenStore(ctx context.Context, path string) (*Store, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)")
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("orders: creating the schema: %w", err)
	}
	return &Store{db: db}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Order returns the order id.
func (s *Store) Order(ctx context.Context, id string) (Order, error) {
	o := Order{ID: id, Lines: []Line{}}
	err := s.db.QueryRowContext(ctx, `SELECT customer, status FROM orders WHERE id = ?`, id).Scan(&o.Customer, &o.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return Order{}, errNotFound
	}
	if err != nil {
		return Order{}, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT sku, qty FROM lines WHERE order_id = ? ORDER BY n`, id)
	if err != nil {
		return Order{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var l Line
		if err := rows.Scan(&l.SKU, &l.Qty); err != nil {
			return Order{}, err
		}
		o.Lines = append(o.Lines, l)
	}
	return o, rows.Err()
}

// Orders returns the ids of the orders with status, or of all orders when
// status is empty, at most limit of them.
func (s *Store) Orders(ctx context.Context, status string, limit int) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM orders WHERE ? = '' OR status = ? ORDER BY id LIMIT ?`, status, status, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Create stores a new open order.
func (s *Store) Create(ctx context.Context, o Order) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `INSERT INTO orders (id, customer, status) VALUES (?, ?, 'open')`, o.ID, o.Customer); err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return errExists
		}
		return err
	}
	for i, l := range o.Lines {
		if _, err := tx.ExecContext(ctx, `INSERT INTO lines (order_id, n, sku, qty) VALUES (?, ?, ?, ?)`, o.ID, i, l.SKU, l.Qty); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Cancel cancels an open order.
func (s *Store) Cancel(ctx context.Context, id string) error {
	var status string
	err := s.db.QueryRowContext(ctx, `UPDATE orders SET status = 'cancelled' WHERE id = ? AND status != 'shipped' RETURNING status`, id).Scan(&status)
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if _, err := s.Order(ctx, id); err != nil {
		return err
	}
	return errShipped
}

// Ship marks an order shipped.
func (s *Store) Ship(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE orders SET status = 'shipped' WHERE id = ?`, id)
	return err
}

// PostAccruals records the month's accruals, unless the period is locked.
func (s *Store) PostAccruals(ctx context.Context, period string, cents int64) error {
	res, err := s.db.ExecContext(ctx, `INSERT INTO accruals (period, amount_cents)
		SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM locked_periods WHERE period = ?)`, period, cents, period)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errLocked
	}
	return nil
}

// Lock locks a period; locking it again is a conflict.
func (s *Store) Lock(ctx context.Context, period string) error {
	res, err := s.db.ExecContext(ctx, `INSERT INTO locked_periods (period) VALUES (?) ON CONFLICT DO NOTHING`, period)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errLocked
	}
	return nil
}

// Accruals returns how many accrual rows period has.
func (s *Store) Accruals(ctx context.Context, period string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM accruals WHERE period = ?`, period).Scan(&n)
	return n, err
}

// Locked reports whether period is locked.
func (s *Store) Locked(ctx context.Context, period string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM locked_periods WHERE period = ?`, period).Scan(&n)
	return n > 0, err
}
