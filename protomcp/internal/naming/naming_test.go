package naming

import (
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/toolname"
)

func TestSnakeAndTitle(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, snake, title string }{
		{"GetForecast", "get_forecast", "Get forecast"},
		{"GetHTTPStatus", "get_http_status", "Get HTTP status"},
		{"HTTPGet", "http_get", "HTTP get"},
		{"ListV2Items", "list_v2_items", "List v2 items"},
		{"Get2Forecasts", "get2_forecasts", "Get2 forecasts"},
		{"get_forecast", "get_forecast", "Get forecast"},
		{"Ping", "ping", "Ping"},
		{"URL", "url", "URL"},
		{"GetURLForID", "get_url_for_id", "Get URL for ID"},
		{"A", "a", "A"},
		{"__Odd__Name", "odd_name", "Odd name"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := Snake(tt.in); got != tt.snake {
				t.Errorf("Snake(%q) = %q, want %q", tt.in, got, tt.snake)
			}
			if got := Title(tt.in); got != tt.title {
				t.Errorf("Title(%q) = %q, want %q", tt.in, got, tt.title)
			}
		})
	}
}

func TestCheckPrefix(t *testing.T) {
	t.Parallel()
	if err := CheckPrefix("bad prefix"); err == nil || err.Error() != `prefix "bad prefix": name has ' '; use only A-Z, a-z, 0-9, '_', '-' and '.'` {
		t.Errorf("CheckPrefix(bad prefix) = %v", err)
	}
	if err := CheckPrefix("weather.v1-"); err != nil {
		t.Errorf("CheckPrefix(weather.v1-) = %v", err)
	}
	if err := CheckPrefix(""); err != nil {
		t.Errorf("CheckPrefix(\"\") = %v", err)
	}
}

// FuzzSnake checks that the snake case of any protobuf identifier is a
// valid tool name made of lower-case words, and that Snake is idempotent.
func FuzzSnake(f *testing.F) {
	for _, s := range []string{"GetForecast", "GetHTTPStatus", "a_B_c", "X9Y", "_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !protoIdent(s) {
			return
		}
		got := Snake(s)
		if got == "" {
			if strings.Trim(s, "_") != "" {
				t.Fatalf("Snake(%q) is empty", s)
			}
			return
		}
		if len(s) <= toolname.MaxLen {
			if err := toolname.Check(got); err != nil && len(got) <= toolname.MaxLen {
				t.Fatalf("Snake(%q) = %q: %v", s, got, err)
			}
		}
		if got != strings.ToLower(got) || strings.Contains(got, "__") || strings.HasPrefix(got, "_") || strings.HasSuffix(got, "_") {
			t.Fatalf("Snake(%q) = %q: not lower-case words joined by single underscores", s, got)
		}
		if again := Snake(got); again != got {
			t.Fatalf("Snake(Snake(%q)) = %q, want %q", s, again, got)
		}
		_ = Title(s)
	})
}

// protoIdent reports whether s is a protobuf identifier.
func protoIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
