package entitybench

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

// cheapest is the SQL tool the query benchmarks call: the 100 cheapest
// products of a category under a price, of the 5,000 the condition
// keeps, with hasMore.
const cheapest = `-- name: cheapest :many
-- The cheapest products of a category under a price.
-- @param max_price number
-- @param category integer
SELECT id, sku, name, price, stock FROM products
WHERE price < @max_price AND category_id = @category
ORDER BY price, id`

// queryRow is a row of cheapest, as the hand-written tools encode it.
type queryRow struct {
	ID    int64   `json:"id"`
	SKU   string  `json:"sku"`
	Name  string  `json:"name"`
	Price float64 `json:"price"`
	Stock *int64  `json:"stock"`
}

type queryOut struct {
	Data    []queryRow `json:"data"`
	HasMore bool       `json:"hasMore"`
}

type queryIn struct {
	MaxPrice float64 `json:"max_price"`
	Category int64   `json:"category"`
}

// addQueryTools adds the SQL tool cheapest and its hand-written twins,
// hand_cheapest and handtx_cheapest.
func addQueryTools(srv *ferry.Server, set *entity.Set, h *hand) error {
	qs, err := entity.ParseQueries("bench.sql", cheapest)
	if err != nil {
		return err
	}
	if err := set.AddQuery(context.Background(), qs[0]); err != nil {
		return err
	}
	for _, tx := range []bool{false, true} {
		prefix := map[bool]string{false: "hand_", true: "handtx_"}[tx]
		srv.AddTool(ferry.Tool{Name: prefix + "cheapest", Description: "The cheapest products, by hand.", ReadOnly: true,
			ClosedWorld: true}, h.cheapestTool(tx))
	}
	return nil
}

// cheapestTool runs cheapest's statement with database/sql and encodes
// the rows with encoding/json, 100 of them and hasMore.
func (h *hand) cheapestTool(tx bool) ferry.ToolHandler {
	return func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		var in queryIn
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return nil, err
		}
		out := queryOut{Data: make([]queryRow, 0, entity.DefaultQueryRows)}
		err := h.run(ctx, tx, func(ctx context.Context, q querier) error {
			rows, err := q.QueryContext(ctx, h.sql(`SELECT id, sku, name, price, stock FROM products
				WHERE price < ? AND category_id = ? ORDER BY price, id LIMIT ?`), in.MaxPrice, in.Category, entity.DefaultQueryRows+1)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				if len(out.Data) == entity.DefaultQueryRows {
					out.HasMore = true
					break
				}
				var r queryRow
				if err := rows.Scan(&r.ID, &r.SKU, &r.Name, &r.Price, &r.Stock); err != nil {
					return err
				}
				out.Data = append(out.Data, r)
			}
			return rows.Err()
		})
		if err != nil {
			return nil, err
		}
		return result(out)
	}
}

var queryCalls = []struct{ side, tool, args string }{
	{"entity", "cheapest", `{"max_price":500,"category":3}`},
	{"hand", "hand_cheapest", `{"max_price":500,"category":3}`},
	{"handtx", "handtx_cheapest", `{"max_price":500,"category":3}`},
}

// TestSameQueryAnswers checks that the hand-written twins answer byte for
// byte as the SQL tool does.
func TestSameQueryAnswers(t *testing.T) {
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			f := open(t, engine)
			var want json.RawMessage
			for _, c := range queryCalls {
				body, header := request(c.tool, c.args)
				got := structured(t, c.tool, f.serve(body, header).Body.Bytes())
				if want == nil {
					want = got
					var out queryOut
					if err := json.Unmarshal(got, &out); err != nil || len(out.Data) != entity.DefaultQueryRows || !out.HasMore {
						t.Errorf("cheapest: %.300s (%v); want %d rows and hasMore", got, err, entity.DefaultQueryRows)
					}
					continue
				}
				if !bytes.Equal(want, got) {
					t.Errorf("cheapest answers\n%.600s\nbut %s answers\n%.600s", want, c.tool, got)
				}
			}
		})
	}
}

// BenchmarkQuery calls the SQL tool and its hand-written twins.
func BenchmarkQuery(b *testing.B) { benchCalls(b, queryCalls) }
