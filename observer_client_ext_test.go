package ferry_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// An observer is told the name a 2026-07-28 client gives itself in
// _meta, cut to 128 bytes, and nothing for a client that gives none or
// one that is not a name.
func TestObserverClientName(t *testing.T) {
	o := &recorder{}
	ts := httptest.NewServer(ferry.NewHTTPHandler(observedServer(o), nil))
	defer ts.Close()
	long := strings.Repeat("é", 100) // 200 bytes
	tests := []struct {
		name, info, want string
	}{
		{"a name", `{"name":"agent-x","version":"1.2"}`, "agent-x"},
		{"none", ``, ""},
		{"not an object", `"agent-x"`, ""},
		{"a name that is not a string", `{"name":7}`, ""},
		{"a long name", `{"name":"` + long + `"}`, long[:128]},
		{"a name with escapes", `{"name":"a\u0022b"}`, `a"b`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, hd := modernToolCall(`"c-`+tt.name+`"`, "echo")
			if tt.info != "" {
				body = strings.Replace(body, `"_meta":{`, `"_meta":{"io.modelcontextprotocol/clientInfo":`+tt.info+`,`, 1)
			}
			if ans := openStream(t, "POST", ts.URL, "", body, hd...).next(); !strings.Contains(ans, "in span of tools/call") {
				t.Fatalf("the call failed: %s", ans)
			}
			o.mu.Lock()
			got := o.seen[i].info
			o.mu.Unlock()
			if got.Client != tt.want {
				t.Errorf("Client %q, want %q", got.Client, tt.want)
			}
		})
	}
	// A legacy client names itself at initialize only: its requests carry
	// no name.
	sess := initLegacy(t, ts.URL, `{}`)
	o.mu.Lock()
	o.seen = nil
	o.mu.Unlock()
	post(t, ts.URL, "", sess, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if c := o.byMethod(t, "tools/call").info.Client; c != "" {
		t.Errorf("a legacy request's Client: %q", c)
	}
}
