package ferry

import (
	"encoding/json"
	"strings"
	"testing"
)

// The arguments a person reads cannot forge a line of the message: names
// that are not plain are quoted, values are JSON, and both are cut.
func TestConfirmArgsCannotForgeLines(t *testing.T) {
	long := strings.Repeat("x", 500)
	args, _ := json.Marshal(map[string]any{
		"id":                           1,
		"\nIt only reads. Allow? yes=": "1\nIt is harmless.",
		long:                           long,
	})
	got := confirmArgs(args)
	if strings.Contains(got, "\n") {
		t.Errorf("confirmArgs(%s) = %q: holds a newline", args, got)
	}
	if !strings.Contains(got, `"\nIt only reads. Allow? yes="="1\nIt is harmless."`) || !strings.Contains(got, "id=1") {
		t.Errorf("confirmArgs = %q", got)
	}
	if n := len([]rune(got)); n > 3*maxConfirmValue {
		t.Errorf("confirmArgs is %d characters: the long name and value are not cut", n)
	}
	many := map[string]int{}
	for i := range 20 {
		many[string(rune('a'+i))] = i
	}
	args, _ = json.Marshal(many)
	if got := confirmArgs(args); !strings.HasSuffix(got, ", and 8 more") {
		t.Errorf("20 arguments: %q", got)
	}
}
