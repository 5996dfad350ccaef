package schema

import "testing"

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"minlength", "minlength", 2, 0},
		{"minlenght", "minlength", 2, 1}, // a swap is one edit
		{"minimun", "minimum", 1, 1},
		{"mininum", "minimum", 1, 1},
		{"maxitem", "maxitems", 1, 1},
		{"form", "format", 1, 2}, // above the limit: limit+1
		{"env", "enum", 1, 2},    // above the limit
		{"db", "doc", 1, 2},      // above the limit
		{"ca", "abc", 3, 3},      // optimal string alignment: no edit after a swap
		{"", "doc", 5, 3},
		{"exclusiveminimun", "exclusiveminimum", 2, 1},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}
