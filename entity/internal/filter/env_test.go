package filter

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNewEnvOmitsUnnameableFields shows a field no expression can name
// is left out, listed by Omitted, while column indexes stay those of the
// given fields.
func TestNewEnvOmitsUnnameableFields(t *testing.T) {
	env, err := NewEnv([]Field{
		{Name: "in", Type: Integer}, {Name: "order-id", Type: Integer}, {Name: "größe", Type: Text},
		{Name: "package", Type: Text}, {Name: "", Type: Text}, {Name: "stock", Type: Integer},
		{Name: "date", Type: Date}, {Name: "size", Type: Integer},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"in", "order-id", "größe", "package", ""}, env.Omitted()); diff != "" {
		t.Errorf("Omitted() (-want +got):\n%s", diff)
	}
	var cols []int
	sql, err := env.Translate(`stock > 1 && date == date("2024-01-01") && size < 3`, SQLite,
		func(i int) string { cols = append(cols, i); return "c" }, func(any, Type) string { return "?" })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{5, 6, 7}, cols); diff != "" {
		t.Errorf("columns asked for (-want +got):\n%s\n%s", diff, sql)
	}
	_, err = env.Translate(`in > 1`, SQLite, func(int) string { return "c" }, func(any, Type) string { return "?" })
	if err == nil || !strings.HasSuffix(err.Error(), "filterable fields: stock (integer), date (date), size (integer)") {
		t.Errorf("a refusal lists the omitted fields: %v", err)
	}
}

func TestNewEnvErrors(t *testing.T) {
	for _, tt := range []struct {
		name   string
		fields []Field
		want   string
	}{
		{"twice", []Field{{Name: "a", Type: Text}, {Name: "a", Type: Integer}}, `filter: field "a" appears twice`},
		{"unknown type", []Field{{Name: "a", Type: 0}}, `filter: field "a" has unknown type 0`},
		{"type beyond", []Field{{Name: "a", Type: Array + 1}}, `filter: field "a" has unknown type 10`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewEnv(tt.fields, nil)
			if err == nil || err.Error() != tt.want {
				t.Errorf("NewEnv: %v, want %s", err, tt.want)
			}
		})
	}
}

func TestTranslateUnknownEngine(t *testing.T) {
	env := fixtureEnv(t)
	_, err := env.Translate(`stock > 1`, "oracle", func(int) string { return "c" }, func(any, Type) string { return "?" })
	if err == nil || err.Error() != `filter: unknown engine "oracle"` {
		t.Errorf("Translate: %v", err)
	}
}

func TestTypeString(t *testing.T) {
	var got []string
	for ty := Text; ty <= Array+1; ty++ {
		got = append(got, ty.String())
	}
	want := []string{"text", "integer", "number", "boolean", "timestamp", "date", "uuid", "json", "array", "type(10)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Type.String (-want +got):\n%s", diff)
	}
}
