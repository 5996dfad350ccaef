package naming

import (
	"strings"
	"testing"
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

func TestCheckName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want string // substring of the error; "" for valid
	}{
		{"get_forecast", ""},
		{"weather.v1-get_forecast", ""},
		{strings.Repeat("a", 128), ""},
		{"", "is empty"},
		{strings.Repeat("a", 129), "129 characters"},
		{"get forecast", `has ' ' at byte 3`},
		{"prévision", `has 'é' at byte 2`},
	}
	for _, tt := range tests {
		err := CheckName(tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckName(%q) = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckName(%q) = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if err := CheckPrefix("bad prefix"); err == nil || !strings.Contains(err.Error(), `prefix "bad prefix"`) {
		t.Errorf("CheckPrefix(bad prefix) = %v", err)
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
		if len(s) <= MaxName {
			if err := CheckName(got); err != nil && len(got) <= MaxName {
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
