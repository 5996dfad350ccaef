package ferry

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// docs/architecture.md lists the methods of the table, in its order, with
// their eras: a method added to the table and not to the page (or the
// other way round) fails here.
func TestArchitectureListsTheMethodTable(t *testing.T) {
	data, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start, end := strings.Index(doc, "<!-- methods:"), strings.Index(doc, "<!-- end of methods -->")
	if start < 0 || end < start {
		t.Fatal("docs/architecture.md has lost its <!-- methods --> markers")
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Za-z/]+)` \\| ([^|]+) \\|")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(doc[start:end], -1) {
		listed = append(listed, m[1])
		if r := lookupMethod(m[1]); r != nil {
			if eras := strings.TrimSpace(m[2]); !strings.HasPrefix(eras, eraText(r.eras)) {
				t.Errorf("%s: the page says %q, the table %q", m[1], eras, eraText(r.eras))
			}
		}
	}
	var table []string
	for i := range methods {
		table = append(table, methods[i].name)
	}
	if strings.Join(listed, " ") != strings.Join(table, " ") {
		t.Errorf("docs/architecture.md lists\n%q\nthe method table has\n%q", listed, table)
	}
}

func eraText(e era) string {
	switch e {
	case eraBoth:
		return "both"
	case eraModern:
		return "2026-07-28"
	}
	return "legacy"
}

// Every row answers in the eras it names and is -32601 in the other, and a
// method that changes a session's state is -32601 where none is kept: one
// place (resolve, from the table) decides, for every method.
func TestResolveAnswersMethodsFromTheTable(t *testing.T) {
	srv := NewServer("s", "1", nil)
	srv.AddTool(Tool{Name: "t", Description: "T."}, func(context.Context, *CallToolRequest) (*ToolResult, error) { return nil, nil })
	srv.AddPromptTemplate(Prompt{Name: "p", Description: "P.", Template: "hi"})
	srv.AddResource(Resource{URI: "x://r", Name: "r"}, func(context.Context, *ReadResourceRequest) ([]ResourceContents, error) { return nil, nil })
	type session struct {
		name      string
		modern    bool
		stateless bool
	}
	for _, sess := range []session{{"modern", true, true}, {"stateful legacy", false, false}, {"stateless legacy", false, true}} {
		for i := range methods {
			m := &methods[i]
			r := newRequest(context.Background(), &jsonrpc.Message{ID: json.RawMessage("1"), Method: m.name},
				&wireParams{Name: "t", URI: "x://r"}, peer{})
			if m.target == targetPrompt {
				r.params.Name = "p"
			}
			if sess.modern {
				r.beModern()
			} else if !sess.stateless {
				r.peer.state = &streamConn{}
			}
			srv.resolve(r)
			// A method of an extension does not exist on a server that does
			// not serve it.
			served := m.eras.has(sess.modern) && !(m.session && sess.stateless) && m.extension == 0
			if got := CodeOf(r.err) != CodeMethodNotFound; got != served {
				t.Errorf("%s in a %s session: served = %v (err %v), want %v", m.name, sess.name, got, r.err, served)
			}
		}
	}
	r := newRequest(context.Background(), &jsonrpc.Message{ID: json.RawMessage("1"), Method: "no/such"}, &wireParams{}, peer{})
	if srv.resolve(r); CodeOf(r.err) != CodeMethodNotFound || r.row != nil {
		t.Errorf("an unknown method resolved to %v, %v", r.row, r.err)
	}
}

// The capabilities initialize and server/discover declare come from the
// table: what the server has, what the era and session can hear of.
func TestCapabilitiesAreDerivedFromTheTable(t *testing.T) {
	srv := NewServer("s", "1", nil)
	if got := srv.capabilities(true, false); len(got) != 0 {
		t.Errorf("an empty server declares %v", got)
	}
	srv.AddTool(Tool{Name: "t", Description: "T."}, func(context.Context, *CallToolRequest) (*ToolResult, error) { return nil, nil })
	srv.AddResource(Resource{URI: "x://r", Name: "r"}, func(context.Context, *ReadResourceRequest) ([]ResourceContents, error) { return nil, nil })
	tests := []struct {
		modern, stateless bool
		want              string
	}{
		{true, false, `{"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}`},
		{false, false, `{"logging":{},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}`},
		{false, true, `{"resources":{},"tools":{}}`},
	}
	for _, tt := range tests {
		got, _ := json.Marshal(srv.capabilities(tt.modern, tt.stateless))
		if string(got) != tt.want {
			t.Errorf("modern %v, stateless %v: %s, want %s", tt.modern, tt.stateless, got, tt.want)
		}
	}
}
