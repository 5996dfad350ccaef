package sqltext

import (
	"strings"
	"testing"
)

// kinds lists the tokens that are not white space as "kind:text".
func kinds(toks []Token) []string {
	var out []string
	for _, t := range toks {
		if t.Kind == Space {
			continue
		}
		out = append(out, string("?_CWQSNPp"[t.Kind])+":"+t.Text)
	}
	return out
}

func TestScan(t *testing.T) {
	tests := []struct {
		name, src string
		d         Dialect
		want      string // kinds joined by |
	}{
		{"param", "SELECT a FROM t WHERE b = @b_1", SQLite, "W:SELECT|W:a|W:FROM|W:t|W:WHERE|W:b|p:=|P:b_1"},
		{"param in a string", "SELECT '@x', \"@y\" FROM t", PostgreSQL, "W:SELECT|S:'@x'|p:,|Q:\"@y\"|W:FROM|W:t"},
		{"doubled quote", "SELECT 'it''s @x'", SQLite, "W:SELECT|S:'it''s @x'"},
		{"mysql backslash", `SELECT 'a\' @x'`, MySQL, `W:SELECT|S:'a\' @x'`},
		{"postgres backslash is text", `SELECT 'a\', @x`, PostgreSQL, `W:SELECT|S:'a\'|p:,|P:x`},
		{"postgres E string", `SELECT E'a\' @x'`, PostgreSQL, `W:SELECT|S:E'a\' @x'`},
		{"dollar string", "SELECT $f$ it's @x $f$ AS y", PostgreSQL, "W:SELECT|S:$f$ it's @x $f$|W:AS|W:y"},
		{"nested comment", "SELECT /* a /* b */ @x */ 1", PostgreSQL, "W:SELECT|C:/* a /* b */ @x */|N:1"},
		{"flat comment", "SELECT /* a /* b */ 1", SQLite, "W:SELECT|C:/* a /* b */|N:1"},
		{"line comment", "SELECT 1 -- @x\n, 2", SQLite, "W:SELECT|N:1|C:-- @x|p:,|N:2"},
		{"mysql dashes", "SELECT 1--1", MySQL, "W:SELECT|N:1|p:-|p:-|N:1"},
		{"mysql hash", "SELECT 1 # @x", MySQL, "W:SELECT|N:1|C:# @x"},
		{"system variable", "SELECT @@version", MySQL, "W:SELECT|p:@@|W:version"},
		{"cast", "SELECT x::text", PostgreSQL, "W:SELECT|W:x|p:::|W:text"},
		{"backticks", "SELECT `a``@x`", MySQL, "W:SELECT|Q:`a``@x`"},
		{"brackets", "SELECT [a @x]", SQLite, "W:SELECT|Q:[a @x]"},
		{"number then word", "SELECT 1delete", PostgreSQL, "W:SELECT|N:1|W:delete"},
		{"exponent", "SELECT 1.5e-3, 0x1F", MySQL, "W:SELECT|N:1.5e-3|p:,|N:0x1F"},
		{"unicode name", "SELECT żółw FROM t", PostgreSQL, "W:SELECT|W:żółw|W:FROM|W:t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks, err := Scan(tt.src, tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(kinds(toks), "|"); got != tt.want {
				t.Errorf("Scan(%q) = %s; want %s", tt.src, got, tt.want)
			}
		})
	}
}

func TestScanRefuses(t *testing.T) {
	tests := []struct {
		src  string
		d    Dialect
		want string
	}{
		{"SELECT 'open", SQLite, "string left open"},
		{"SELECT \"open", PostgreSQL, "quoted name left open"},
		{"SELECT /* open", SQLite, "left open"},
		{"SELECT /* a /* b */", PostgreSQL, "left open"},
		{"SELECT $x$ open", PostgreSQL, "left open"},
		{"SELECT ?", SQLite, "? placeholder"},
		{"SELECT $1", PostgreSQL, "$n placeholder"},
		{"SELECT :name", SQLite, ":name placeholder"},
		{"SELECT 1 /*! , @@version */", MySQL, "executable comment"},
		{"SELECT 1 /*M! , 2 */", MySQL, "executable comment"},
		{"SELECT '\x00'", SQLite, "NUL"},
		{"SELECT '\xff'", SQLite, "UTF-8"},
	}
	for _, tt := range tests {
		if _, err := Scan(tt.src, tt.d); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Scan(%q) = %v; want %q", tt.src, err, tt.want)
		}
	}
}

// FuzzScan checks that every byte of a statement Scan reads lands in one
// token, in order.
func FuzzScan(f *testing.F) {
	for _, s := range []string{"SELECT 'a''b' -- c\n FROM \"t\" WHERE x = @y", "SELECT $a$x$a$ /* /* */ */", "SELECT `a`, [b], E'\\''", "SELECT @@v # x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, d := range []Dialect{SQLite, PostgreSQL, MySQL} {
			toks, err := Scan(src, d)
			if err != nil {
				continue
			}
			var b strings.Builder
			for _, tk := range toks {
				if b.Len() != tk.Pos {
					t.Fatalf("%d: token %q at %d, after %d bytes", d, tk.Text, tk.Pos, b.Len())
				}
				if tk.Kind == Param {
					b.WriteByte('@')
				}
				b.WriteString(tk.Text)
			}
			if b.String() != src {
				t.Fatalf("%d: tokens give %q; want %q", d, b.String(), src)
			}
			if code, err := Code(toks); err == nil {
				_, _ = Classify(code)
			}
		}
	})
}
