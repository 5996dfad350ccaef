package entitybench

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// aggregateCalls total the 100,000 products per category: the entity
// tool and the same query written by hand.
var aggregateCalls = []struct{ side, tool, args string }{
	{"entity", "aggregate_products", `{"aggregates":["count","sum(price)","avg(price)"],"groupBy":["category_id"]}`},
	{"hand", "hand_aggregate_products", `{}`},
	{"handtx", "handtx_aggregate_products", `{}`},
}

// aggregateTool answers what aggregate_products answers for the calls
// above, writing the JSON as the entity tools do (numbers as strconv's
// shortest 'g' form).
func (h *hand) aggregateTool(tx bool) ferry.ToolHandler {
	return func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		b := make([]byte, 0, 1024)
		err := h.run(ctx, tx, func(ctx context.Context, q querier) error {
			rows, err := q.QueryContext(ctx, h.sql("SELECT category_id, COUNT(*), SUM(price), COUNT(price) FROM products"+
				" GROUP BY category_id ORDER BY category_id LIMIT ? OFFSET ?"), 101, 0)
			if err != nil {
				return err
			}
			defer rows.Close()
			b = append(b, `{"data":[`...)
			n := 0
			for rows.Next() {
				var cat, count, counted int64
				var sum float64
				if err := rows.Scan(&cat, &count, &sum, &counted); err != nil {
					return err
				}
				if n > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"category_id":`...)
				b = strconv.AppendInt(b, cat, 10)
				b = append(b, `,"count":`...)
				b = strconv.AppendInt(b, count, 10)
				b = append(b, `,"sum(price)":`...)
				b = strconv.AppendFloat(b, sum, 'g', -1, 64)
				b = append(b, `,"avg(price)":`...)
				b = strconv.AppendFloat(b, sum/float64(counted), 'g', -1, 64)
				b = append(b, '}')
				n++
			}
			b = append(b, `],"paging":{"skip":0,"top":100,"hasMore":false}}`...)
			return rows.Err()
		})
		if err != nil {
			return nil, err
		}
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(string(b))}, StructuredContent: json.RawMessage(b)}, nil
	}
}

// TestSameAggregate checks the hand-written aggregate answers byte for
// byte as aggregate_products does.
func TestSameAggregate(t *testing.T) {
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			f := open(t, engine)
			var want json.RawMessage
			for _, c := range aggregateCalls {
				body, header := request(c.tool, c.args)
				got := structured(t, c.tool, f.serve(body, header).Body.Bytes())
				if want == nil {
					want = got
					continue
				}
				if !bytes.Equal(want, got) {
					t.Errorf("aggregate_products answers\n%.600s\nbut %s answers\n%.600s", want, c.tool, got)
				}
			}
		})
	}
}

// BenchmarkAggregateProducts counts, sums and averages the prices of the
// 100,000 products per category (ten groups).
func BenchmarkAggregateProducts(b *testing.B) { benchCalls(b, aggregateCalls) }
