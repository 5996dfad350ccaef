package entity_test

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// The aggregate fixture: sales whose region folds under every engine's
// usual collation (case, a trailing space, an accent), NULLs in every
// column, and days at the edges of months and of UTC days. Amounts and
// prices are quarters, so that a sum is exact in any order, as a double
// too. secret is hidden: no aggregate, group, order or filter reaches it.

type sale struct {
	id     int64
	region *string
	amount *int64
	price  *float64
	soldOn *string // YYYY-MM-DD
	soldAt *time.Time
}

func sp(s string) *string    { return &s }
func ip(n int64) *int64      { return &n }
func fp(f float64) *float64  { return &f }
func tp(s string) *time.Time { t, _ := time.Parse(time.RFC3339Nano, s); return &t }

var sales = []sale{
	{1, sp("north"), ip(10), fp(1.5), sp("2024-01-15"), tp("2024-01-15T10:00:00Z")},
	{2, sp("North"), ip(5), fp(2.25), sp("2024-01-31"), tp("2024-01-31T23:30:00Z")},
	{3, sp("north "), nil, nil, sp("2024-02-01"), tp("2024-02-01T00:00:00Z")},
	{4, sp("north"), ip(-3), fp(0.75), nil, nil},
	{5, nil, ip(7), fp(100), sp("2023-12-31"), tp("2023-12-31T23:59:59.999999Z")},
	{6, sp("süd"), ip(2147483647), fp(3.5), sp("2024-02-29"), tp("2024-02-29T12:00:00Z")},
	{7, sp("sud"), ip(1), nil, sp("2024-01-15"), tp("2024-01-15T00:00:00Z")},
	{8, sp("süd"), nil, fp(0.25), sp("2025-03-01"), tp("2025-03-01T05:00:00Z")},
	{9, sp(""), ip(0), fp(0), sp("2024-01-15"), nil},
}

var salesDDL = map[string]string{
	"sqlite": `CREATE TABLE i24agg_sales (id INTEGER PRIMARY KEY, region TEXT COLLATE NOCASE, amount INTEGER,
		price REAL, sold_on DATE, sold_at TIMESTAMP, secret INTEGER)`,
	"postgres": `CREATE TABLE i24agg_sales (id bigint PRIMARY KEY, region text COLLATE "en-US-x-icu", amount integer,
		price numeric(10,2), sold_on date, sold_at timestamptz, secret integer)`,
	"mysql": `CREATE TABLE i24agg_sales (id bigint PRIMARY KEY, region varchar(20) COLLATE utf8mb4_general_ci, amount int,
		price decimal(10,2), sold_on date, sold_at datetime(6), secret int) CHARACTER SET utf8mb4`,
}

// loadSales creates and fills the fixture, each sale's secret 1000 times
// its id.
func loadSales(t *testing.T, engine string, db *sql.DB) {
	t.Helper()
	execAll(t, db, salesDDL[engine])
	lit := func(p any) string {
		switch v := p.(type) {
		case *string:
			if v == nil {
				return "NULL"
			}
			return "'" + *v + "'"
		case *int64:
			if v == nil {
				return "NULL"
			}
			return strconv.FormatInt(*v, 10)
		case *float64:
			if v == nil {
				return "NULL"
			}
			return strconv.FormatFloat(*v, 'f', -1, 64)
		case *time.Time:
			switch {
			case v == nil:
				return "NULL"
			case engine == "sqlite":
				return "'" + v.UTC().Format(entity.SQLiteTimeLayout) + "'"
			case engine == "mysql":
				return "'" + v.UTC().Format("2006-01-02 15:04:05.000000") + "'"
			}
			return "'" + v.UTC().Format(time.RFC3339Nano) + "'"
		}
		panic(p)
	}
	for _, s := range sales {
		execAll(t, db, fmt.Sprintf("INSERT INTO i24agg_sales VALUES (%d, %s, %s, %s, %s, %s, %d)",
			s.id, lit(s.region), lit(s.amount), lit(s.price), lit(s.soldOn), lit(s.soldAt), s.id*1000))
	}
}

// salesServer serves the fixture, introspected with secret hidden, with
// every field aggregatable, with no bound on the rate of calls (the
// attack tests make hundreds).
func salesServer(t *testing.T, db *sql.DB, opts *entity.Options) *client {
	t.Helper()
	srv := ferry.NewServer("sales", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallRate: -1}})
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	es, err := entity.Introspect(t.Context(), db, set.Engine(), &entity.IntrospectOptions{
		Tables: []string{"i24agg_sales"}, ExcludeColumns: []string{"i24agg_sales.secret"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range es[0].Fields {
		f.Aggregatable = f.Name != "id"
	}
	if _, err := set.Add(es[0], opts); err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return serve(t, srv)
}

// oracle computes what aggregate answers, in Go, from the sales kept.
func oracle(kept []sale, groupBy, aggs []string, order []string) []map[string]any {
	type acc struct {
		key  []any
		rows []sale
	}
	var groups []*acc
	for _, s := range kept {
		key := make([]any, len(groupBy))
		for i, g := range groupBy {
			key[i] = groupValue(s, g)
		}
		i := slices.IndexFunc(groups, func(a *acc) bool { return slices.Equal(a.key, key) })
		if i < 0 {
			groups = append(groups, &acc{key: key})
			i = len(groups) - 1
		}
		groups[i].rows = append(groups[i].rows, s)
	}
	if len(groupBy) == 0 && len(groups) == 0 {
		groups = append(groups, &acc{})
	}
	var out []map[string]any
	for _, g := range groups {
		m := map[string]any{}
		for i, name := range groupBy {
			m[name] = g.key[i]
		}
		for _, a := range aggs {
			m[a] = measureOf(g.rows, a)
		}
		out = append(out, m)
	}
	terms := append([]string(nil), order...)
	for _, g := range groupBy {
		if !slices.ContainsFunc(order, func(o string) bool { return strings.Fields(o)[0] == g }) {
			terms = append(terms, g)
		}
	}
	slices.SortStableFunc(out, func(a, b map[string]any) int {
		for _, term := range terms {
			w := strings.Fields(term)
			c := compareValues(a[w[0]], b[w[0]])
			if len(w) == 2 && w[1] == "desc" {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}

// groupValue is a sale's value of a grouping, as results write it.
func groupValue(s sale, g string) any {
	field, by, _ := strings.Cut(g, ":")
	switch field {
	case "region":
		if s.region == nil {
			return nil
		}
		return *s.region
	case "amount":
		if s.amount == nil {
			return nil
		}
		return float64(*s.amount)
	case "sold_on":
		if s.soldOn == nil {
			return nil
		}
		d, _ := time.Parse(time.DateOnly, *s.soldOn)
		return truncate(d, by, time.DateOnly)
	case "sold_at":
		if s.soldAt == nil {
			return nil
		}
		return truncate(s.soldAt.UTC(), by, time.RFC3339Nano)
	}
	panic(g)
}

func truncate(t time.Time, by, layout string) string {
	switch by {
	case "day":
		return t.Format("2006-01-02")
	case "month":
		return t.Format("2006-01") + "-01"
	case "year":
		return t.Format("2006") + "-01-01"
	}
	return t.Format(layout)
}

// measureOf computes one aggregate over rows: nulls skipped; sum, avg,
// min and max of nothing are null.
func measureOf(rows []sale, a string) any {
	if a == "count" {
		return float64(len(rows))
	}
	fn, field, _ := strings.Cut(strings.TrimSuffix(a, ")"), "(")
	var vals []any
	for _, s := range rows {
		var v any
		switch field {
		case "region":
			if s.region != nil {
				v = *s.region
			}
		case "amount":
			if s.amount != nil {
				v = float64(*s.amount)
			}
		case "price":
			if s.price != nil {
				v = *s.price
			}
		case "sold_on":
			if s.soldOn != nil {
				v = *s.soldOn
			}
		case "sold_at":
			if s.soldAt != nil {
				v = s.soldAt.UTC().Format(time.RFC3339Nano)
			}
		}
		if v != nil {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	switch fn {
	case "sum", "avg":
		sum := 0.0
		for _, v := range vals {
			sum += v.(float64)
		}
		if fn == "avg" {
			return sum / float64(len(vals))
		}
		return sum
	case "min":
		return slices.MinFunc(vals, compareValues)
	}
	return slices.MaxFunc(vals, compareValues)
}

// compareValues orders nulls first, text by bytes (code point), numbers
// by value.
func compareValues(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch x := a.(type) {
	case string:
		return strings.Compare(x, b.(string))
	case float64:
		return cmp.Compare(x, b.(float64))
	}
	panic(a)
}

// groupsOf decodes an aggregate result's groups, numbers as float64
// (exact for the fixture's values), and its paging.
func groupsOf(t *testing.T, raw json.RawMessage) ([]map[string]any, map[string]any) {
	t.Helper()
	var res struct {
		Data   []map[string]any `json:"data"`
		Paging map[string]any   `json:"paging"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	for _, g := range res.Data {
		for k, v := range g {
			if n, ok := v.(json.Number); ok {
				f, err := strconv.ParseFloat(string(n), 64)
				if err != nil {
					t.Fatal(err)
				}
				g[k] = f
			}
		}
	}
	if res.Data == nil {
		res.Data = []map[string]any{}
	}
	return res.Data, res.Paging
}

// TestAggregateMatchesGo asks each engine for aggregates of the fixture
// and requires exactly what Go computes from the same rows: groups that
// a collation would merge stay apart, NULLs form their own group, days
// are UTC's, and a filter that keeps nothing gives no group (or, without
// groupBy, a count of 0 and null sums).
func TestAggregateMatchesGo(t *testing.T) {
	all := []string{"count", "sum(amount)", "avg(amount)", "min(amount)", "max(amount)", "sum(price)", "avg(price)",
		"min(price)", "max(price)", "min(region)", "max(region)", "min(sold_on)", "max(sold_on)", "min(sold_at)", "max(sold_at)"}
	positive := func(s sale) bool { return s.amount != nil && *s.amount > 0 }
	tests := []struct {
		name    string
		filter  string
		keep    func(sale) bool
		groupBy []string
		aggs    []string
		orderBy []string
	}{
		{name: "every record", aggs: all},
		{name: "by region", groupBy: []string{"region"}, aggs: all},
		{name: "by month and region", groupBy: []string{"sold_on:month", "region"}, aggs: []string{"count", "sum(price)"}},
		{name: "by day of a timestamp", groupBy: []string{"sold_at:day"}, aggs: []string{"count", "max(sold_at)"}},
		{name: "by year", groupBy: []string{"sold_at:year", "sold_on:year"}, aggs: []string{"count"}},
		{name: "by timestamp", groupBy: []string{"sold_at"}, aggs: []string{"count"}},
		{name: "by amount", groupBy: []string{"amount"}, aggs: []string{"count", "avg(price)"}},
		{name: "filtered", filter: "amount > 0", keep: positive, groupBy: []string{"region"}, aggs: []string{"count", "avg(amount)"}},
		{name: "nothing kept", filter: "amount > 1000000000000", keep: func(sale) bool { return false }, aggs: all},
		{name: "nothing kept, grouped", filter: "amount > 1000000000000", keep: func(sale) bool { return false }, groupBy: []string{"region"}, aggs: all},
		{name: "ordered by count", groupBy: []string{"region"}, aggs: []string{"count", "sum(amount)"}, orderBy: []string{"count desc"}},
		{name: "ordered by sum", groupBy: []string{"region"}, aggs: []string{"sum(amount)"}, orderBy: []string{"sum(amount) desc"}},
		{name: "ordered by a group", groupBy: []string{"sold_on:month", "region"}, aggs: []string{"count"}, orderBy: []string{"region desc", "sold_on:month"}},
	}
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			loadSales(t, e.Name, db)
			c := salesServer(t, db, nil)
			for _, tt := range tests {
				args := map[string]any{"aggregates": tt.aggs}
				if tt.groupBy != nil {
					args["groupBy"] = tt.groupBy
				}
				if tt.filter != "" {
					args["filter"] = tt.filter
				}
				if tt.orderBy != nil {
					args["orderBy"] = strings.Join(tt.orderBy, ", ")
				}
				raw, _ := json.Marshal(args)
				got, paging := groupsOf(t, c.ok("aggregate_i24agg_sales", string(raw)))
				kept := sales
				if tt.keep != nil {
					kept = slices.DeleteFunc(slices.Clone(sales), func(s sale) bool { return !tt.keep(s) })
				}
				want := oracle(kept, tt.groupBy, tt.aggs, tt.orderBy)
				if want == nil {
					want = []map[string]any{}
				}
				if !sameGroups(got, want) {
					t.Errorf("%s:\n got %v\nwant %v", tt.name, got, want)
				}
				if paging["hasMore"] != false {
					t.Errorf("%s: paging %v", tt.name, paging)
				}
			}
		})
	}
}

func sameGroups(got, want []map[string]any) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return false
		}
		for k, w := range want[i] {
			g, ok := got[i][k]
			if !ok {
				return false
			}
			if gf, ok := g.(float64); ok {
				wf, ok := w.(float64)
				if !ok || (gf != wf && math.Abs(gf-wf) > 1e-12*math.Abs(wf)) {
					return false
				}
				continue
			}
			if g != w {
				return false
			}
		}
	}
	return true
}

// TestAggregatePaging pages groups: top+1 tells hasMore, skip moves on,
// and the pages together are the groups in order.
func TestAggregatePaging(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			loadSales(t, e.Name, db)
			c := salesServer(t, db, nil)
			want := oracle(sales, []string{"region"}, []string{"count"}, nil)
			var got []map[string]any
			for skip := 0; ; skip += 2 {
				page, paging := groupsOf(t, c.ok("aggregate_i24agg_sales", fmt.Sprintf(`{"groupBy":["region"],"top":2,"skip":%d}`, skip)))
				got = append(got, page...)
				if paging["hasMore"] != true {
					break
				}
				if skip > 20 {
					t.Fatal("paging does not end")
				}
			}
			if !sameGroups(got, want) {
				t.Errorf("pages:\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestAggregateScope keeps an aggregate to the caller's rows, compared
// exactly: "north" is not "North" nor "north ".
func TestAggregateScope(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			loadSales(t, e.Name, db)
			c := salesServer(t, db, &entity.Options{Scope: &entity.Scope{Field: "region",
				Value: func(_ context.Context, _ *ferry.Principal) (any, error) { return "north", nil }}})
			got, _ := groupsOf(t, c.ok("aggregate_i24agg_sales", `{"aggregates":["count","sum(amount)"],"groupBy":["region"]}`))
			want := []map[string]any{{"region": "north", "count": 2.0, "sum(amount)": 7.0}}
			if !sameGroups(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// A number JSON cannot write (an infinity; NaN on PostgreSQL) is null to
// an aggregate, as to a record: sums and averages skip it, min and max
// never give it, and it groups with the nulls.
func TestAggregateNonFiniteIsNull(t *testing.T) {
	for _, e := range dbtest.Engines[:2] { // MySQL holds no such number
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			typ := "REAL"
			inf, ninf := "9e999", "-9e999"
			if e.Name == "postgres" {
				typ, inf, ninf = "double precision", "'Infinity'", "'NaN'"
			}
			execAll(t, db, "CREATE TABLE i24agg_weights (id INTEGER PRIMARY KEY, kg "+typ+")",
				"INSERT INTO i24agg_weights VALUES (1, 1.5), (2, "+inf+"), (3, "+ninf+"), (4, 2.5), (5, NULL)")
			srv := ferry.NewServer("w", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
			set, err := entity.NewSet(srv, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			es, err := entity.Introspect(t.Context(), db, set.Engine(), &entity.IntrospectOptions{Tables: []string{"i24agg_weights"}})
			if err != nil {
				t.Fatal(err)
			}
			es[0].Field("kg").Aggregatable = true
			if _, err := set.Add(es[0], nil); err != nil {
				t.Fatal(err)
			}
			c := serve(t, srv)
			got, _ := groupsOf(t, c.ok("aggregate_i24agg_weights", `{"aggregates":["count","sum(kg)","avg(kg)","min(kg)","max(kg)"]}`))
			want := []map[string]any{{"count": 5.0, "sum(kg)": 4.0, "avg(kg)": 2.0, "min(kg)": 1.5, "max(kg)": 2.5}}
			if !sameGroups(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
			got, _ = groupsOf(t, c.ok("aggregate_i24agg_weights", `{"groupBy":["kg"]}`))
			want = []map[string]any{{"kg": nil, "count": 3.0}, {"kg": 1.5, "count": 1.0}, {"kg": 2.5, "count": 1.0}}
			if !sameGroups(got, want) {
				t.Errorf("grouped: got %v, want %v", got, want)
			}
			// Without the guard first, where no group holds such a
			// number; again with it where one does, or where the order
			// is by an aggregate.
			for args, want := range map[string][]map[string]any{
				`{"aggregates":["sum(kg)","min(kg)"],"filter":"kg < 100.0"}`:                          {{"count": nil, "sum(kg)": 4.0, "min(kg)": 1.5}},
				`{"aggregates":["sum(kg)","max(kg)"],"groupBy":["id"],"filter":"id == 2 || id == 4"}`: {{"id": 2.0, "sum(kg)": nil, "max(kg)": nil}, {"id": 4.0, "sum(kg)": 2.5, "max(kg)": 2.5}},
				`{"aggregates":["avg(kg)"],"groupBy":["id"],"filter":"id == 3"}`:                      {{"id": 3.0, "avg(kg)": nil}},
				`{"aggregates":["sum(kg)"],"groupBy":["id"],"orderBy":"sum(kg) desc","top":2}`:        {{"id": 4.0, "sum(kg)": 2.5}, {"id": 1.0, "sum(kg)": 1.5}},
			} {
				got, _ := groupsOf(t, c.ok("aggregate_i24agg_weights", args))
				for _, g := range want {
					if g["count"] == nil {
						delete(g, "count")
					}
				}
				if !sameGroups(got, want) {
					t.Errorf("%s: got %v, want %v", args, got, want)
				}
			}
		})
	}
}
