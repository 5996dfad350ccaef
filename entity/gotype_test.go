package entity

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

type OrderItem struct {
	ID       string     `json:"id" entity:"key,uuid"`
	Order    int64      `db:"order_id" ref:"order"`
	Quantity int        `json:"quantity" entity:"filter,sort" minimum:"1" doc:"How many."`
	Shipped  *time.Time `json:"shipped_on" entity:"date,filter"`
	Secret   string     `db:"-"`
	Hidden   string     `json:"-"`
}

type named struct {
	ID int64 `json:"id" entity:"key"`
}

func (named) TableName() string { return "legacy_tbl" }

func TestOf(t *testing.T) {
	e, err := Of[OrderItem]()
	if err != nil {
		t.Fatal(err)
	}
	want := &Entity{Name: "order_item", Plural: "order_items", Table: "order_items", Key: "id", Fields: []*Field{
		{Name: "id", Column: "id", Type: UUID, Filterable: true, Sortable: true},
		{Name: "order_id", Column: "order_id", Type: Integer, References: &Reference{Entity: "order"}},
		{Name: "quantity", Column: "quantity", Type: Integer, Filterable: true, Sortable: true, Description: "How many."},
		{Name: "shipped_on", Column: "shipped_on", Type: Date, Nullable: true, Filterable: true},
	}}
	if d := cmp.Diff(want, e, cmpopts.IgnoreFields(Field{}, "Schema")); d != "" {
		t.Errorf("Of[OrderItem] (-want +got):\n%s", d)
	}
	if s := e.Field("shipped_on").Schema; s == nil || s.Format != "date" || !s.Nullable {
		t.Errorf("shipped_on's schema = %+v", s)
	}
	if s := e.Field("quantity").Schema; s == nil || s.Minimum == nil || *s.Minimum != 1 {
		t.Errorf("quantity's schema lost its minimum: %+v", s)
	}
	n, err := Of[named]()
	if err != nil || n.Table != "legacy_tbl" || n.Name != "named" || !n.Field("id").Generated {
		t.Errorf("Of[named] = %+v, %v", n, err)
	}
}

type badType struct {
	ID   int64       `json:"id" entity:"key"`
	Tags []time.Time `json:"tags"`
}

type badTag struct {
	ID int64 `json:"id" entity:"key,filtr"`
}

type twoKeys struct {
	A int64 `entity:"key"`
	B int64 `entity:"key"`
}

type nullKey struct {
	A *int64 `entity:"key"`
}

type badSearch struct {
	A int64 `entity:"search"`
}

func TestOfErrors(t *testing.T) {
	tests := []struct {
		name string
		of   func() (*Entity, error)
		want string
	}{
		{"slice", Of[badType], "entity: badType.Tags: type []time.Time cannot be a column"},
		{"unknown option", Of[badTag], `entity: badTag.ID: entity tag: unknown option "filtr"`},
		{"two keys", Of[twoKeys], "entity: twoKeys.B: entity tag: a second key (the first is a)"},
		{"pointer key", Of[nullKey], "entity: nullKey.A: entity tag: a key cannot be a pointer"},
		{"search on int", Of[badSearch], "entity: badSearch.A: entity tag: search applies to text fields only"},
		{"not a struct", Of[int], "entity: int is not a struct type"},
	}
	for _, tt := range tests {
		_, err := tt.of()
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: %v; want %q", tt.name, err, tt.want)
		}
	}
}
