package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The store's errors, which the REST API turns into problems.
var (
	errNotFound = errors.New("not found")
	errShipped  = errors.New("the order has shipped")
	errCanceled = errors.New("the order is cancelled")
	// errKeyReused is an idempotency key sent again with another order.
	errKeyReused = errors.New("the idempotency key belongs to another order")
)

// lineError is a line of a new order the shop cannot fill.
type lineError struct {
	Line    int // from 0
	Problem string
}

// linesError lists every line of a new order the shop cannot fill.
type linesError []lineError

func (e linesError) Error() string {
	parts := make([]string, len(e))
	for i, l := range e {
		parts[i] = fmt.Sprintf("line %d: %s", l.Line, l.Problem)
	}
	return strings.Join(parts, "; ")
}

// Store reads and changes the shop's orders. It is safe for concurrent
// use; every change runs in one transaction.
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// NewStore returns the store of db. now is the clock of new orders and
// events; nil means time.Now.
func NewStore(db *sql.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

func (s *Store) stamp() string { return s.now().UTC().Format(timeLayout) }

// Product returns the product with sku.
func (s *Store) Product(ctx context.Context, sku string) (Product, error) {
	var p Product
	err := s.db.QueryRowContext(ctx, `SELECT id, sku, name, description, category, price_cents, stock, reorder_level
FROM products WHERE sku = ?`, sku).Scan(&p.ID, &p.SKU, &p.Name, &p.Description, &p.Category, &p.PriceCents, &p.Stock, &p.ReorderLevel)
	if errors.Is(err, sql.ErrNoRows) {
		return p, errNotFound
	}
	return p, err
}

// Order returns the order id with its lines.
func (s *Store) Order(ctx context.Context, id int64) (Order, error) {
	return order(ctx, s.db, id)
}

// querier is what both *sql.DB and *sql.Tx do.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func order(ctx context.Context, q querier, id int64) (Order, error) {
	o := Order{Lines: []OrderLine{}}
	err := q.QueryRowContext(ctx, `SELECT id, customer_id, status, placed_at, total_cents FROM orders WHERE id = ?`, id).
		Scan(&o.ID, &o.CustomerID, &o.Status, &o.PlacedAt, &o.TotalCents)
	if errors.Is(err, sql.ErrNoRows) {
		return o, errNotFound
	} else if err != nil {
		return o, err
	}
	rows, err := q.QueryContext(ctx, `SELECT p.sku, p.name, l.qty, l.unit_price_cents
FROM order_lines l JOIN products p ON p.id = l.product_id WHERE l.order_id = ? ORDER BY l.line`, id)
	if err != nil {
		return o, err
	}
	defer rows.Close()
	for rows.Next() {
		var l OrderLine
		if err := rows.Scan(&l.SKU, &l.Name, &l.Qty, &l.UnitPriceCents); err != nil {
			return o, err
		}
		o.Lines = append(o.Lines, l)
	}
	return o, rows.Err()
}

// OrderFilter selects orders for [Store.Orders].
type OrderFilter struct {
	CustomerID int64  // 0: any
	Status     string // "": any
	Limit      int
}

// Orders lists orders, newest first.
func (s *Store) Orders(ctx context.Context, f OrderFilter) ([]OrderSummary, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, customer_id, status, placed_at, total_cents FROM orders
WHERE (? = 0 OR customer_id = ?) AND (? = '' OR status = ?) ORDER BY id DESC LIMIT ?`,
		f.CustomerID, f.CustomerID, f.Status, f.Status, f.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []OrderSummary{}
	for rows.Next() {
		var o OrderSummary
		if err := rows.Scan(&o.ID, &o.CustomerID, &o.Status, &o.PlacedAt, &o.TotalCents); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// History returns the events of order id, oldest first.
func (s *Store) History(ctx context.Context, id int64) (History, error) {
	h := History{OrderID: id, Events: []Event{}}
	rows, err := s.db.QueryContext(ctx, `SELECT at, event, note FROM order_events WHERE order_id = ? ORDER BY id`, id)
	if err != nil {
		return h, err
	}
	defer rows.Close()
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.At, &e.Event, &e.Note); err != nil {
			return h, err
		}
		h.Events = append(h.Events, e)
	}
	if err := rows.Err(); err != nil {
		return h, err
	}
	if len(h.Events) == 0 { // every order has its placed event
		return h, errNotFound
	}
	return h, nil
}

// NewLine is a line of a new order.
type NewLine struct {
	SKU string `json:"sku" doc:"The product's SKU, such as TEA-003." pattern:"^[A-Z]{3}-[0-9]{3}$"`
	Qty int64  `json:"qty" doc:"How many units." minimum:"1" maximum:"50"`
}

// PlaceOrder places an order for customer in one transaction: the order,
// its lines, the stock it takes and its placed event are all written, or
// none is. A line whose product is unknown or short of stock fails the
// whole order with a [linesError] listing every such line; an unknown
// customer fails it with errNotFound.
//
// A non-empty key makes the order idempotent: placing it again with the
// same key returns the order placed the first time, and replayed true,
// and changes nothing; the same key with another customer or other lines
// fails with errKeyReused. The store compares keys as they are: scoping
// one to its caller is the caller's part (the REST API does it).
func (s *Store) PlaceOrder(ctx context.Context, customer int64, lines []NewLine, key, note string) (o Order, replayed bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Order{}, false, err
	}
	defer func() { _ = tx.Rollback() }()
	now := s.stamp()
	// The first statement writes, so the transaction takes the write
	// lock at once (waiting for busy_timeout) instead of failing later.
	res, err := tx.ExecContext(ctx, `INSERT INTO orders (customer_id, status, placed_at, total_cents, idempotency_key)
SELECT id, 'placed', ?, 0, NULLIF(?, '') FROM customers WHERE id = ?
ON CONFLICT (idempotency_key) DO NOTHING`, now, key, customer)
	if err != nil {
		return Order{}, false, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return Order{}, false, err
	} else if n == 0 {
		return replay(ctx, tx, customer, lines, key)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return Order{}, false, err
	}
	total, err := takeStock(ctx, tx, id, lines)
	if err != nil {
		return Order{}, false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE orders SET total_cents = ? WHERE id = ?`, total, id); err != nil {
		return Order{}, false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO order_events (order_id, at, event, note) VALUES (?, ?, 'placed', ?)`, id, now, note); err != nil {
		return Order{}, false, err
	}
	if o, err = order(ctx, tx, id); err != nil {
		return Order{}, false, err
	}
	return o, false, tx.Commit()
}

// replay answers an order that inserted nothing: the order placed before
// with key, if it is the same order, else the reason.
func replay(ctx context.Context, tx *sql.Tx, customer int64, lines []NewLine, key string) (Order, bool, error) {
	if key == "" {
		return Order{}, false, errNotFound // no such customer
	}
	var id int64
	if err := tx.QueryRowContext(ctx, `SELECT id FROM orders WHERE idempotency_key = ?`, key).Scan(&id); errors.Is(err, sql.ErrNoRows) {
		return Order{}, false, errNotFound // no such customer, and the key is unused
	} else if err != nil {
		return Order{}, false, err
	}
	o, err := order(ctx, tx, id)
	if err != nil {
		return Order{}, false, err
	}
	same := o.CustomerID == customer && len(o.Lines) == len(lines)
	for i := 0; same && i < len(lines); i++ {
		same = o.Lines[i].SKU == lines[i].SKU && o.Lines[i].Qty == lines[i].Qty
	}
	if !same {
		return o, false, errKeyReused
	}
	return o, true, nil
}

// takeStock writes the lines of order id, taking their units from stock,
// and returns the order's total. It tries every line, so that the error
// lists each one that cannot be filled.
func takeStock(ctx context.Context, tx *sql.Tx, id int64, lines []NewLine) (int64, error) {
	var total int64
	var bad linesError
	for i, l := range lines {
		var pid, price int64
		err := tx.QueryRowContext(ctx, `UPDATE products SET stock = stock - ? WHERE sku = ? AND stock >= ?
RETURNING id, price_cents`, l.Qty, l.SKU, l.Qty).Scan(&pid, &price)
		if errors.Is(err, sql.ErrNoRows) {
			var stock int64
			switch err := tx.QueryRowContext(ctx, `SELECT stock FROM products WHERE sku = ?`, l.SKU).Scan(&stock); {
			case errors.Is(err, sql.ErrNoRows):
				bad = append(bad, lineError{i, "no product has SKU " + l.SKU})
			case err != nil:
				return 0, err
			default:
				bad = append(bad, lineError{i, fmt.Sprintf("only %d of %s in stock, %d ordered", stock, l.SKU, l.Qty)})
			}
			continue
		} else if err != nil {
			return 0, err
		}
		if len(bad) > 0 {
			continue // the order fails: no need to write its lines
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO order_lines (order_id, line, product_id, qty, unit_price_cents) VALUES (?, ?, ?, ?, ?)`,
			id, i+1, pid, l.Qty, price); err != nil {
			return 0, err
		}
		total += l.Qty * price
	}
	if len(bad) > 0 {
		return 0, bad
	}
	return total, nil
}

// Cancel cancels order id and puts its units back in stock. Cancelling a
// cancelled order changes nothing; a shipped order fails with errShipped.
func (s *Store) Cancel(ctx context.Context, id int64, reason string) (Order, error) {
	return s.move(ctx, id, "cancelled", "by the shop: "+reason, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE products SET stock = stock +
(SELECT SUM(l.qty) FROM order_lines l WHERE l.order_id = ? AND l.product_id = products.id)
WHERE id IN (SELECT product_id FROM order_lines WHERE order_id = ?)`, id, id)
		return err
	})
}

// Ship marks order id shipped. Shipping a shipped order changes nothing;
// a cancelled order fails with errCanceled.
func (s *Store) Ship(ctx context.Context, id int64) (Order, error) {
	return s.move(ctx, id, "shipped", "by the warehouse", nil)
}

// move moves a placed order to status, with an event and then, in the
// same transaction, also, if not nil.
func (s *Store) move(ctx context.Context, id int64, status, note string, also func(*sql.Tx) error) (Order, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Order{}, err
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, `UPDATE orders SET status = ? WHERE id = ? AND status = 'placed'`, status, id)
	if err != nil {
		return Order{}, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return Order{}, err
	}
	if n == 1 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO order_events (order_id, at, event, note) VALUES (?, ?, ?, ?)`, id, s.stamp(), status, note); err != nil {
			return Order{}, err
		}
		if also != nil {
			if err := also(tx); err != nil {
				return Order{}, err
			}
		}
	}
	o, err := order(ctx, tx, id)
	if err != nil {
		return Order{}, err
	}
	switch o.Status {
	case status: // moved now, or before: nothing more to do
	case "shipped":
		return o, errShipped
	case "cancelled":
		return o, errCanceled
	}
	return o, tx.Commit()
}
