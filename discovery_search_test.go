package ferry

import (
	"slices"
	"testing"
)

func TestStem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		word string
		want term
	}{
		{"orders", term{base: "order"}},
		{"ordered", term{base: "order"}},
		{"manage", term{base: "manag"}},
		{"manages", term{base: "manag"}},
		{"deletes", term{base: "delete", canon: "delete"}},
		{"removed", term{base: "remove", canon: "delete"}},
		{"people", term{base: "person"}},
		{"lent", term{base: "loan"}},
		{"bills", term{base: "invoic"}},
		{"invoice", term{base: "invoic"}},
		{"notes", term{base: "note"}},
		{"boxes", term{base: "box"}},
		{"companies", term{base: "company"}},
	}
	for _, tt := range tests {
		if got := stem(tt.word); got != tt.want {
			t.Errorf("stem(%q) = %+v, want %+v", tt.word, got, tt.want)
		}
	}
}

func TestPrefixed(t *testing.T) {
	t.Parallel()
	vocab := []string{"depart", "departur", "order", "renew", "renewal", "rome"}
	if got := prefixed(vocab, "departur"); !slices.Equal(got, []string{"depart"}) {
		t.Errorf("prefixed(departur) = %q", got)
	}
	if got := prefixed(vocab, "renew"); !slices.Equal(got, []string{"renewal"}) {
		t.Errorf("prefixed(renew) = %q", got)
	}
	if got := prefixed(vocab, "rome"); got != nil {
		t.Errorf("a word shorter than %d letters matched by prefix: %q", minPrefix, got)
	}
}

func TestQueryWordsWrites(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{"which orders are late": false, "remove the order": true, "how many seats were sold": false} {
		if _, _, writes := queryWords(q, map[string]int{}, nil, nil, 1); writes != want {
			t.Errorf("queryWords(%q) writes = %v, want %v", q, writes, want)
		}
	}
}
