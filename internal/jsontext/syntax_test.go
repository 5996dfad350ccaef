package jsontext

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// syntaxSeeds are the seeds of the syntax fuzzers: every corner of the
// grammar, and an order document as a tool receives it.
var syntaxSeeds = []string{
	`{
	"customer": {"email": "ann@example.com", "name": "Ann"},
	"placed": "2026-03-31",
	"items": [{"sku": "A-1", "qty": 2, "price": 9.5e0}, {"sku": "B\u00e9", "qty": -0}]
}`,
	``, ` `, `null`, `nul`, `{}`, `[]`, `[1,]`, `{"a":1,}`, `"\u12"`, `"\x"`, "\"\t\"",
	`-`, `-0`, `01`, `1.`, `1e`, `1e+5`, `[[[]]]`, `{"a" 1}`, `"a"x`, `tru`, `"\ud800"`, "\"\xff\"",
	`{"a":[1,{"b":null}],"c":"\"\\\/\b\f\n\r\t\u00FF"}`, ` [ true , false ] `, `{"a":1}}`, `[1]]`,
}

// FuzzValid holds the syntax check to json.Valid.
func FuzzValid(f *testing.F) {
	for _, seed := range syntaxSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", data, got, want)
		}
	})
}

// depthOf returns how deeply valid JSON nests, without recursion.
func depthOf(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	depth, most := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			return most
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
			most = max(most, depth)
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}

// FuzzScannerDepth holds a Scanner with a small MaxDepth to json.Valid
// and the value's depth: it accepts exactly the valid values nested no
// deeper, and says TooDeep exactly for the valid values nested deeper.
// Where it fails, the index it returns is within the input.
func FuzzScannerDepth(f *testing.F) {
	for _, seed := range syntaxSeeds {
		f.Add([]byte(seed), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		sc := Scanner{MaxDepth: int(limit % 8)}
		if end, _ := sc.Value(data, SkipSpace(data, 0), 0); end > len(data) {
			t.Fatalf("Value(%q) = %d, past the end", data, end)
		}
		ok := sc.Valid(data)
		if !json.Valid(data) {
			if ok {
				t.Fatalf("Valid(%q) accepted invalid JSON", data)
			}
			return
		}
		deep := depthOf(data) > sc.MaxDepth
		if ok == deep || sc.TooDeep() != deep {
			t.Fatalf("MaxDepth %d, Valid(%q) = %v, TooDeep %v; it nests %d deep", sc.MaxDepth, data, ok, sc.TooDeep(), depthOf(data))
		}
	})
}

func TestValidRefusesJSONsOwnDepthLimit(t *testing.T) {
	for _, n := range []int{MaxDepth, MaxDepth + 1, 100_000} {
		in := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if got, want := Valid(in), json.Valid(in); got != want {
			t.Errorf("%d levels: Valid %v, json.Valid %v", n, got, want)
		}
	}
}

func TestScannerReportsWhereItFailed(t *testing.T) {
	tests := []struct {
		in      string
		at      int
		tooDeep bool
	}{
		{`[1,]`, 3, false},
		{`{"a":[[1]]}`, 6, true},
		{`{"a":"\q"}`, 7, false},
		{`[[1],[2]`, 8, false},
	}
	for _, tt := range tests {
		sc := Scanner{MaxDepth: 2}
		at, ok := sc.Value([]byte(tt.in), 0, 0)
		if ok || at != tt.at || sc.TooDeep() != tt.tooDeep {
			t.Errorf("%s: %d, %v, too deep %v; want %d, false, %v", tt.in, at, ok, sc.TooDeep(), tt.at, tt.tooDeep)
		}
	}
}

func BenchmarkValid(b *testing.B) {
	in := []byte(syntaxSeeds[0])
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if !Valid(in) {
			b.Fatal("invalid")
		}
	}
}
