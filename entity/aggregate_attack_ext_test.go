package entity_test

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// checksumTables digests the tables' rows, hidden columns included.
func checksumTables(t *testing.T, db *sql.DB, tables ...string) string {
	t.Helper()
	h := sha256.New()
	for _, table := range tables {
		rows, err := db.Query("SELECT * FROM " + table + " ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "%v\n", vals)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestAggregateHostileNames sends what an injection would as aggregates,
// groups and orderBy terms, hidden column names among them: each call is
// refused as invalid (never a masked database failure), no answer holds
// the hidden column's values, and the table is unchanged.
func TestAggregateHostileNames(t *testing.T) {
	nasty := []string{
		"secret", "sum(secret)", "max(secret)", "secret:month", "count(*)", "sum(amount) desc", "sum(amount);",
		`sum(amount)) FROM i24agg_sales; DROP TABLE i24agg_sales; --`, `'`, `"`, "`", `\`, `/* */`, `--`, `;`,
		`region" OR 1=1 --`, "region\x00", "ｒｅｇｉｏｎ", "région", "\u202e", "REGION", "Region", "count\t(x)",
		"sum( amount)", "sum(AMOUNT)", "avg(id)", "avg(region)", "sum(sold_on)", "sold_at:week", "sold_at:",
		"amount:month", "(SELECT secret FROM i24agg_sales)", strings.Repeat("x", 2000), `$1`, `?`, `@p1`,
	}
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			loadSales(t, e.Name, db)
			c := salesServer(t, db, nil)
			before := checksumTables(t, db, "i24agg_sales")
			for _, s := range nasty {
				q, _ := json.Marshal(s)
				for _, args := range []string{
					`{"aggregates":[` + string(q) + `]}`,
					`{"groupBy":[` + string(q) + `]}`,
					`{"groupBy":["region"],"orderBy":` + string(q) + `}`,
					`{"aggregates":["count"],"orderBy":` + string(q) + ` }`,
					`{"filter":` + string(mustJSON(s+" > 0")) + `}`,
				} {
					r := c.call("aggregate_i24agg_sales", args)
					if !r.IsError || !strings.HasPrefix(r.text(), "invalid") {
						t.Errorf("%s: %.200s; want an invalid refusal", args, r.text())
					}
					if strings.Contains(r.text(), "9000") || strings.Contains(r.text(), "internal") {
						t.Errorf("%s: %.200s", args, r.text())
					}
				}
			}
			if after := checksumTables(t, db, "i24agg_sales"); after != before {
				t.Error("the table changed")
			}
			tools, _ := c.rpc("tools/list", "", `{}`)
			if strings.Contains(string(tools), "secret") {
				t.Errorf("the tools name the hidden column: %s", tools)
			}
		})
	}
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// TestAggregateToolOnlyWithAggregatableFields serves aggregate_<plural>
// only for an entity with an aggregatable field, and refuses a field
// whose type nothing aggregates.
func TestAggregateToolOnlyWithAggregatableFields(t *testing.T) {
	db := dbtest.SQLite(t)
	loadSales(t, "sqlite", db)
	es, err := entity.Introspect(t.Context(), db, entity.SQLite, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := quiet()
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.Add(es[0], &entity.Options{Name: "plain"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range es[0].Fields {
		f.Aggregatable = f.Name == "id"
	}
	if _, err := set.Add(es[0], &entity.Options{Name: "counted"}); err != nil {
		t.Fatal(err)
	}
	type Flag struct {
		ID int64 `json:"id" entity:"key"`
		On bool  `json:"on" entity:"aggregate"`
	}
	_, err = entity.Add[Flag](set, nil)
	if err == nil || !strings.Contains(err.Error(), "flag.on: a boolean field cannot be aggregated") {
		t.Errorf("a boolean aggregate field: %v", err)
	}
	c := serve(t, srv)
	tools := c.tools()
	if _, ok := tools["aggregate_plains"]; ok {
		t.Error("aggregate_plains is served without an aggregatable field")
	}
	if _, ok := tools["aggregate_counteds"]; !ok {
		t.Errorf("no aggregate_counteds among %v", keysOf(tools))
	}
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
