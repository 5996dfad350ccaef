package filter

import (
	"errors"
	"testing"
)

// TestErrorColumn checks a refusal points at the character where the
// problem starts, for cel-go's errors and the translator's own.
func TestErrorColumn(t *testing.T) {
	env := fixtureEnv(t)
	for _, tt := range []struct {
		expr string
		want int
	}{
		{`cost = 5`, 6},
		{`stock > 1 && nmae == "x"`, 14},
		{"stock > 1 &&\n  nmae == \"x\"", 16},
		{`stock > 1 && size(name) > 2`, 18},
		{`stock > 1 && due < seen`, 18},
		{`name == "é" && stock + 1 > 2`, 22},
		{`stock`, 1},
	} {
		_, err := env.Translate(tt.expr, SQLite, func(int) string { return "c" }, func(any, Type) string { return "?" })
		var fe *Error
		if !errors.As(err, &fe) {
			t.Fatalf("%q: %v", tt.expr, err)
		}
		if fe.Column != tt.want {
			t.Errorf("%q: column %d, want %d (%v)", tt.expr, fe.Column, tt.want, err)
		}
	}
}
