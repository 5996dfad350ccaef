package entitybench

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// Category is the record a product's category_id refers to.
type Category struct {
	ID   int64  `json:"id" entity:"key"`
	Name string `json:"name"`
}

// expandCalls list the same 100 products as listCalls, each with its
// category nested: the entity tool's expand, and by hand a join.
var expandCalls = []struct{ side, tool, args string }{
	{"entity", "list_products", `{"filter":"` + jsonEscape(listFilter) + `","top":100,"expand":["category"]}`},
	{"hand", "hand_list_products_expanded", `{"maxPrice":500,"category":3,"top":100,"skip":0}`},
	{"handtx", "handtx_list_products_expanded", `{"maxPrice":500,"category":3,"top":100,"skip":0}`},
}

// expanded is a product with its category, as expand nests it.
type expanded struct {
	Product
	Category *Category `json:"category"`
}

// expandTool lists products with their category by hand: one query
// joining the two tables, and the count.
func (h *hand) expandTool(tx bool) ferry.ToolHandler {
	return func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		var in listIn
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return nil, err
		}
		var out struct {
			Data   []expanded `json:"data"`
			Paging paging     `json:"paging"`
		}
		err := h.run(ctx, tx, func(ctx context.Context, q querier) error {
			rows, err := q.QueryContext(ctx, h.sql("SELECT p.id, p.sku, p.name, p.description, p.price, p.stock, p.category_id,"+
				" p.created_at, c.id, c.name FROM products p LEFT JOIN categories c ON c.id = p.category_id"+
				" WHERE p.price < ? AND p.category_id = ? ORDER BY p.id LIMIT ? OFFSET ?"), in.MaxPrice, in.Category, in.Top+1, in.Skip)
			if err != nil {
				return err
			}
			defer rows.Close()
			out.Data = make([]expanded, 0, in.Top+1)
			for rows.Next() {
				var x expanded
				var c Category
				var cid *int64
				var cname *string
				if x.Product, err = h.scan(joined{rows, &cid, &cname}); err != nil {
					return err
				}
				if cid != nil {
					c.ID, c.Name = *cid, *cname
					x.Category = &c
				}
				out.Data = append(out.Data, x)
			}
			if err := rows.Err(); err != nil {
				return err
			}
			out.Paging = paging{Skip: in.Skip, Top: in.Top, TotalCount: in.Skip + len(out.Data)}
			if len(out.Data) > in.Top {
				out.Data, out.Paging.HasMore = out.Data[:in.Top], true
				return q.QueryRowContext(ctx, h.sql("SELECT COUNT(*) FROM products WHERE price < ? AND category_id = ?"),
					in.MaxPrice, in.Category).Scan(&out.Paging.TotalCount)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return result(out)
	}
}

// joined scans a product's columns and then its category's.
type joined struct {
	r    scanner
	id   **int64
	name **string
}

func (j joined) Scan(dest ...any) error { return j.r.Scan(append(dest, j.id, j.name)...) }

// TestSameExpandAnswers checks the hand-written join answers byte for
// byte as list_products with expand does.
func TestSameExpandAnswers(t *testing.T) {
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			f := open(t, engine)
			var want json.RawMessage
			for _, c := range expandCalls {
				body, header := request(c.tool, c.args)
				got := structured(t, c.tool, f.serve(body, header).Body.Bytes())
				if want == nil {
					want = got
					if !bytes.Contains(got, []byte(`"category":{"id":3,"name":"category 3"}`)) {
						t.Errorf("list_products with expand: %.400s", got)
					}
					continue
				}
				if !bytes.Equal(want, got) {
					t.Errorf("list_products with expand answers\n%.600s\nbut %s answers\n%.600s", want, c.tool, got)
				}
			}
		})
	}
}

// BenchmarkListExpanded lists 100 products with their category.
func BenchmarkListExpanded(b *testing.B) { benchCalls(b, expandCalls) }
