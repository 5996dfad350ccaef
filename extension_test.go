package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// A client's extensions are read from its capabilities in both eras, the
// same way: the members of the extensions object Ferry knows, whatever
// their settings and however their names are written; others are not
// taken.
func TestClientExtensionsAreRead(t *testing.T) {
	caps := `{"sampling":{},"extensions":{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]},` +
		`"com.example/other":{},"io.modelcontextprotocol\u002fskills":{}}}`
	want := extensions(ExtensionTasks | ExtensionUI | ExtensionSkills)
	var c capsJSON
	if err := c.UnmarshalJSON([]byte(caps)); err != nil || c.caps.ext != want || !c.caps.sampling {
		t.Errorf("2026-07-28 _meta: %+v, %v; want tasks, skills and ui", c.caps, err)
	}
	if got := parseClientCaps(json.RawMessage(caps)); got.ext != want {
		t.Errorf("legacy initialize: %+v; want tasks, skills and ui", got)
	}
	two := extensions(ExtensionTasks | ExtensionUI)
	if got := (clientCaps{ext: two}).exported(); !got.Speaks(ExtensionTasks) || got.Speaks(ExtensionSkills) ||
		got.caps().ext != two {
		t.Errorf("exported %+v does not round-trip", got)
	}
}

// A stateless session id keeps the extensions its client declared.
func TestSessionTokenKeepsExtensions(t *testing.T) {
	k := newKeyring(nil)
	for _, ext := range []extensions{0, extensions(ExtensionTasks), extensions(ExtensionTasks | ExtensionSkills | ExtensionUI)} {
		id := k.issueSession(Version20251125, clientCaps{roots: true, ext: ext}, nil)
		got, err := k.checkSession(id, DefaultSessionTTL, nil)
		if err != nil || got.caps.ext != ext || !got.caps.roots {
			t.Errorf("extensions %b: the token reads %+v, %v", ext, got.caps, err)
		}
	}
}

// A server declares the extensions it serves; a method of an extension
// does not exist on a server that does not serve it, and a client that did
// not declare it gets -32021 naming it in data.requiredCapabilities.
func TestExtensionMethodsAreNegotiated(t *testing.T) {
	methods = append(methods, method{name: "test/extension", eras: eraBoth, extension: ExtensionSkills,
		serve: func(_ *Server, _ context.Context, _ *request, b []byte) ([]byte, error) { return b, nil }})
	methodIndex["test/extension"] = &methods[len(methods)-1]
	t.Cleanup(func() { methods = methods[:len(methods)-1]; delete(methodIndex, "test/extension") })

	resolve := func(s *Server, declared extensions) error {
		r := newRequest(context.Background(), &jsonrpc.Message{ID: json.RawMessage("1"), Method: "test/extension"}, &wireParams{}, peer{})
		r.beModern()
		r.caps.ext = declared
		s.resolve(r)
		return r.err
	}
	srv := NewServer("s", "1", nil)
	if err := resolve(srv, extensions(ExtensionSkills)); CodeOf(err) != CodeMethodNotFound {
		t.Errorf("a server that does not serve the extension: %v, want -32601", err)
	}
	if _, ok := srv.capabilities(true, false)["extensions"]; ok {
		t.Error("a server that serves no extension declares extensions")
	}
	srv.serveExtension(ExtensionSkills, nil)
	if err := resolve(srv, extensions(ExtensionSkills)); err != nil {
		t.Errorf("a client that declared the extension: %v", err)
	}
	err := resolve(srv, extensions(ExtensionTasks))
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("a client that did not declare it: %v, want an *Error", err)
	}
	data, _ := json.Marshal(pe.Data)
	if CodeOf(err) != CodeMissingClientCapability ||
		string(data) != `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/skills":{}}}}` {
		t.Errorf("a client that did not declare it: %v %s", err, data)
	}
	caps, _ := json.Marshal(srv.capabilities(true, false))
	if string(caps) != `{"extensions":{"io.modelcontextprotocol/skills":{}}}` {
		t.Errorf("capabilities = %s", caps)
	}
}
