package filter

import (
	"strconv"
	"testing"
)

// BenchmarkTranslate measures a typical filter, checked and translated
// for PostgreSQL.
func BenchmarkTranslate(b *testing.B) {
	for _, bc := range []struct{ name, expr string }{
		{"typical", `cost > 100 && name.contains("test")`},
		{"nullable", `stock != 5 && !(price > 2.5) || note == null`},
		{"in", `name in ["a", "b", "c", "d", "e"] && due >= date("2024-01-01")`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			env := fixtureEnv(b)
			cols := make([]string, len(fixtureFields))
			for i, f := range fixtureFields {
				cols[i] = `"items"."` + f.Name + `"`
			}
			args := make([]any, 0, 16)
			b.ReportAllocs()
			for b.Loop() {
				args = args[:0]
				_, err := env.Translate(bc.expr, PostgreSQL, func(i int) string { return cols[i] },
					func(v any, _ Type) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) })
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("uncached", func(b *testing.B) {
		env := fixtureEnv(b)
		n := 0
		b.ReportAllocs()
		for b.Loop() {
			n++ // a new literal each time, so the cache never hits
			expr := `cost > ` + strconv.Itoa(n) + `.5 && name.contains("test")`
			_, err := env.Translate(expr, PostgreSQL, func(int) string { return "c" }, func(any, Type) string { return "$1" })
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
