package entitybench

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

// hand holds the hand-written tools: the queries written out with
// database/sql, the records encoded with encoding/json.
type hand struct {
	db     *sql.DB
	engine entity.Engine
}

const columns = "id, sku, name, description, price, stock, category_id, created_at"

// listIn and getIn are the hand-written tools' arguments.
type listIn struct {
	MaxPrice float64 `json:"maxPrice"`
	Category int64   `json:"category"`
	Top      int     `json:"top"`
	Skip     int     `json:"skip"`
}

type getIn struct {
	ID int64 `json:"id"`
}

type paging struct {
	TotalCount int  `json:"totalCount"`
	Skip       int  `json:"skip"`
	Top        int  `json:"top"`
	HasMore    bool `json:"hasMore"`
}

type listOut struct {
	Data   []Product `json:"data"`
	Paging paging    `json:"paging"`
}

type getOut struct {
	Data Product `json:"data"`
}

func (h *hand) sql(q string) string {
	if h.engine != entity.PostgreSQL {
		return q
	}
	// $n for PostgreSQL: the queries below have at most four.
	out := make([]byte, 0, len(q)+8)
	n := byte('0')
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			out = append(out, '$', n)
			continue
		}
		out = append(out, q[i])
	}
	return string(out)
}

func result(v any) (*ferry.ToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(string(b))}, StructuredContent: json.RawMessage(b)}, nil
}

func (h *hand) listTool(tx bool) ferry.ToolHandler {
	return func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		var in listIn
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return nil, err
		}
		var out listOut
		err := h.run(ctx, tx, func(ctx context.Context, q querier) error {
			var err error
			out, err = h.list(ctx, q, in)
			return err
		})
		if err != nil {
			return nil, err
		}
		return result(out)
	}
}

func (h *hand) list(ctx context.Context, q querier, in listIn) (listOut, error) {
	rows, err := q.QueryContext(ctx, h.sql("SELECT "+columns+
		" FROM products WHERE price < ? AND category_id = ? ORDER BY id LIMIT ? OFFSET ?"),
		in.MaxPrice, in.Category, in.Top+1, in.Skip)
	if err != nil {
		return listOut{}, err
	}
	defer rows.Close()
	out := listOut{Data: make([]Product, 0, in.Top)}
	for rows.Next() {
		p, err := h.scan(rows)
		if err != nil {
			return listOut{}, err
		}
		out.Data = append(out.Data, p)
	}
	if err := rows.Err(); err != nil {
		return listOut{}, err
	}
	out.Paging = paging{Skip: in.Skip, Top: in.Top, TotalCount: in.Skip + len(out.Data)}
	if len(out.Data) > in.Top {
		out.Data, out.Paging.HasMore = out.Data[:in.Top], true
		err := q.QueryRowContext(ctx, h.sql("SELECT COUNT(*) FROM products WHERE price < ? AND category_id = ?"),
			in.MaxPrice, in.Category).Scan(&out.Paging.TotalCount)
		if err != nil {
			return listOut{}, err
		}
	}
	return out, nil
}

func (h *hand) getTool(tx bool) ferry.ToolHandler {
	return func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		var in getIn
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return nil, err
		}
		var out getOut
		err := h.run(ctx, tx, func(ctx context.Context, q querier) error {
			rows, err := q.QueryContext(ctx, h.sql("SELECT "+columns+" FROM products WHERE id = ?"), in.ID)
			if err != nil {
				return err
			}
			defer rows.Close()
			if !rows.Next() {
				if err := rows.Err(); err != nil {
					return err
				}
				return ferry.NotFound("no such product")
			}
			out.Data, err = h.scan(rows)
			return err
		})
		if err != nil {
			return nil, err
		}
		return result(out)
	}
}

type scanner interface{ Scan(dest ...any) error }

func (h *hand) scan(r scanner) (Product, error) {
	var p Product
	var desc sql.NullString
	var stock sql.NullInt64
	var created any
	if err := r.Scan(&p.ID, &p.SKU, &p.Name, &desc, &p.Price, &stock, &p.CategoryID, &created); err != nil {
		return p, err
	}
	if desc.Valid {
		p.Description = &desc.String
	}
	if stock.Valid {
		p.Stock = &stock.Int64
	}
	switch c := created.(type) {
	case time.Time:
		p.CreatedAt = c.UTC()
	case string:
		t, err := time.Parse(time.RFC3339Nano, c)
		if err != nil {
			return p, err
		}
		p.CreatedAt = t.UTC()
	default:
		return p, errors.New("created_at of an unexpected type")
	}
	return p, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// run runs fn on the database, or, with tx, as the entity tools read: in
// a read-only transaction (PostgreSQL: repeatable read, so a page and its
// count see one snapshot) under a 10-second timeout enforced by the
// engine (PostgreSQL) and the context (SQLite's query_only connection).
func (h *hand) run(ctx context.Context, tx bool, fn func(context.Context, querier) error) error {
	if !tx {
		return fn(ctx, h.db)
	}
	ctx, cancel := context.WithTimeout(ctx, 11*time.Second)
	defer cancel()
	if h.engine == entity.SQLite {
		return h.runSQLite(ctx, fn)
	}
	t, err := h.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return err
	}
	defer func() { _ = t.Rollback() }()
	if _, err := t.ExecContext(ctx, "SET LOCAL statement_timeout = 10000"); err != nil {
		return err
	}
	if err := fn(ctx, t); err != nil {
		return err
	}
	return t.Commit()
}

func (h *hand) runSQLite(ctx context.Context, fn func(context.Context, querier) error) error {
	conn, err := h.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		return err
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA query_only = 0") }()
	t, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = t.Rollback() }()
	if err := fn(ctx, t); err != nil {
		return err
	}
	return t.Commit()
}
