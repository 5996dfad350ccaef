package ferry

import (
	"bytes"
	"strings"
	"testing"
)

// A line over the limit is skipped with an error, and the connection goes
// on serving.
func TestStdioSkipsOversizedLines(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", MaxLineBytes) + `"}}`
	in := huge + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	var out bytes.Buffer
	if err := NewServer("s", "1", nil).Run(t.Context(), &IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "message too large") || lines[1] != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("got %q", lines)
	}
}
