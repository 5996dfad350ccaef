package entity

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/ferry-mcp/ferry/schema"
)

type outItem struct {
	ID    int64   `json:"id" entity:"key"`
	SKU   string  `json:"sku" entity:"natural"`
	Price float64 `json:"price" entity:"filter,sort"`
	Note  *string `json:"note"`
}

// TestResultsFitOutputSchemas checks every result, successes and
// refusals alike, against its tool's output schema, as clients do.
func TestResultsFitOutputSchemas(t *testing.T) {
	db := dbtest.SQLite(t)
	if _, err := db.Exec(`CREATE TABLE out_items (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, price REAL NOT NULL, note TEXT)`); err != nil {
		t.Fatal(err)
	}
	srv := ferry.NewServer("x", "1", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	set, err := NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Add[outItem](set, nil); err != nil {
		t.Fatal(err)
	}
	tb := set.tables[0]
	one, err := schema.Compile(tb.oneSchema(), schema.Strict)
	if err != nil {
		t.Fatal(err)
	}
	list, err := schema.Compile(tb.listSchema(), schema.Strict)
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		h    ferry.ToolHandler
		v    *schema.Validator
		args string
	}{
		{tb.create, one, `{"sku":"A-1","price":2.5}`},
		{tb.create, one, `{"sku":"A-1","price":3}`}, // conflict
		{tb.get, one, `{"id":1}`},
		{tb.get, one, `{"id":9}`}, // not found
		{tb.list, list, `{}`},
		{tb.list, list, `{"filter":"price > 1"}`},
		{tb.list, list, `{"filter":"price = 1"}`}, // invalid
		{tb.list, list, `{"orderBy":"nope"}`},     // invalid
		{tb.update, one, `{"sku":"A-1","note":"n"}`},
		{tb.update, one, `{"sku":"A-1"}`}, // nothing to change
		{tb.remove, one, `{"id":1}`},
		{tb.remove, one, `{"id":1}`}, // not found
	}
	for _, c := range calls {
		res, err := refusing(c.h)(context.Background(), &ferry.CallToolRequest{Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		data, _ := json.Marshal(res.StructuredContent)
		if _, errs := c.v.Validate(data); errs != nil {
			t.Errorf("%s: %s does not fit the output schema: %v", c.args, data, errs)
		}
	}
}
