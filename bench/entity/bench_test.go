package entitybench

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/entity"
)

var engines = []entity.Engine{entity.SQLite, entity.PostgreSQL}

// The calls, per side: the entity tool and the two hand-written ones.
var (
	listCalls = []struct{ side, tool, args string }{
		{"entity", "list_products", `{"filter":"` + jsonEscape(listFilter) + `","top":100}`},
		{"hand", "hand_list_products", `{"maxPrice":500,"category":3,"top":100,"skip":0}`},
		{"handtx", "handtx_list_products", `{"maxPrice":500,"category":3,"top":100,"skip":0}`},
	}
	getCalls = []struct{ side, tool, args string }{
		{"entity", "get_product", `{"id":54321}`},
		{"hand", "hand_get_product", `{"id":54321}`},
		{"handtx", "handtx_get_product", `{"id":54321}`},
	}
)

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// structured returns a tools/call answer's structured content, failing
// on an error answer.
func structured(tb testing.TB, tool string, body []byte) json.RawMessage {
	tb.Helper()
	var a struct {
		Result struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		Error json.RawMessage
	}
	if err := json.Unmarshal(body, &a); err != nil || a.Error != nil || a.Result.IsError {
		tb.Fatalf("%s: %s %v", tool, body, err)
	}
	return a.Result.StructuredContent
}

// TestSameAnswers checks that the hand-written tools answer byte for
// byte as the entity tools do, so the benchmark compares like with like.
func TestSameAnswers(t *testing.T) {
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			f := open(t, engine)
			for _, calls := range [][]struct{ side, tool, args string }{listCalls, getCalls} {
				var want json.RawMessage
				for _, c := range calls {
					body, header := request(c.tool, c.args)
					rec := f.serve(body, header)
					got := structured(t, c.tool, rec.Body.Bytes())
					if want == nil {
						want = got
						continue
					}
					if !bytes.Equal(want, got) {
						t.Errorf("%s answers\n%.600s\nbut %s answers\n%.600s", calls[0].tool, want, c.tool, got)
					}
				}
				if calls[0].tool == "list_products" {
					var p struct {
						Data   []json.RawMessage
						Paging struct {
							TotalCount int
							HasMore    bool
						}
					}
					if err := json.Unmarshal(want, &p); err != nil || len(p.Data) != listTop || !p.Paging.HasMore || p.Paging.TotalCount != 5000 {
						t.Errorf("list_products: %d records, paging %+v (%v); want %d, hasMore, totalCount 5000",
							len(p.Data), p.Paging, err, listTop)
					}
				}
			}
		})
	}
}

func benchCalls(b *testing.B, calls []struct{ side, tool, args string }) {
	for _, engine := range engines {
		for _, c := range calls {
			b.Run(string(engine)+"/"+c.side, func(b *testing.B) {
				f := open(b, engine)
				body, header := request(c.tool, c.args)
				b.ReportAllocs()
				for b.Loop() {
					if rec := f.serve(body, header.Clone()); rec.Code != http.StatusOK {
						b.Fatalf("%s: %d %s", c.tool, rec.Code, rec.Body)
					}
				}
			})
		}
	}
}

// BenchmarkListProducts lists 100 of the 5,000 products a filter keeps,
// out of 100,000, with their total count.
func BenchmarkListProducts(b *testing.B) { benchCalls(b, listCalls) }

// BenchmarkGetProduct reads one product by key.
func BenchmarkGetProduct(b *testing.B) { benchCalls(b, getCalls) }

// BenchmarkRatio runs the entity call and a hand-written one in turns, in
// the same loop, and reports each one's mean time and their ratio: on a
// shared machine the load then weighs on both alike, which separate
// benchmarks cannot promise.
func BenchmarkRatio(b *testing.B) {
	for _, engine := range engines {
		for _, calls := range [][]struct{ side, tool, args string }{listCalls, getCalls, queryCalls, aggregateCalls, expandCalls} {
			for _, hand := range calls[1:] {
				name := calls[0].tool
				if &calls[0] == &expandCalls[0] {
					name += "_expand"
				}
				b.Run(name+"/"+string(engine)+"/"+hand.side, func(b *testing.B) {
					f := open(b, engine)
					eb, eh := request(calls[0].tool, calls[0].args)
					hb, hh := request(hand.tool, hand.args)
					var te, th time.Duration
					n := 0
					for b.Loop() {
						for i := range 2 {
							start := time.Now()
							if (n+i)%2 == 0 {
								f.serve(eb, eh.Clone())
								te += time.Since(start)
							} else {
								f.serve(hb, hh.Clone())
								th += time.Since(start)
							}
						}
						n++
					}
					b.ReportMetric(float64(te.Nanoseconds())/float64(n), "entity-ns/op")
					b.ReportMetric(float64(th.Nanoseconds())/float64(n), "hand-ns/op")
					b.ReportMetric(float64(te)/float64(th), "ratio")
				})
			}
		}
	}
}

// BenchmarkSearchProducts searches the 100,000 products through the
// full-text index, best match first, with the total count: "54321" is in
// one product, "product" in every one (the worst case: every row ranked).
// There is no hand-written twin; it shows what a search costs.
func BenchmarkSearchProducts(b *testing.B) {
	for _, engine := range engines {
		for _, word := range []string{"54321", "product"} {
			b.Run(string(engine)+"/"+word, func(b *testing.B) {
				f := open(b, engine)
				body, header := request("list_products", `{"search":"`+word+`","top":10}`)
				b.ReportAllocs()
				for b.Loop() {
					rec := f.serve(body, header.Clone())
					if rec.Code != http.StatusOK || bytes.Contains(rec.Body.Bytes(), []byte(`"isError":true`)) {
						b.Fatalf("search %s: %d %.300s", word, rec.Code, rec.Body)
					}
				}
			})
		}
	}
}
