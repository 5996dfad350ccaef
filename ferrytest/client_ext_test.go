package ferrytest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/ferrytest"
)

var eras = []string{"", client.Version20251125, client.Version20250326}

// The in-memory client calls, lists, reads and completes in every era,
// and answers elicitation and sampling with the test's functions.
func TestNewClient(t *testing.T) {
	for _, era := range eras {
		t.Run("era="+era, func(t *testing.T) {
			srv := newServer()
			c := ferrytest.NewClient(t, srv, &ferrytest.Options{
				Protocol: era,
				Elicit: func(context.Context, *client.ElicitParams) (*client.ElicitResult, error) {
					return &client.ElicitResult{Action: "decline"}, nil
				},
				CreateMessage: func(context.Context, *client.CreateMessageParams) (*client.CreateMessageResult, error) {
					return &client.CreateMessageResult{Role: client.RoleAssistant, Content: client.Text("old pond"), Model: "m"}, nil
				},
			})
			if want := era; want == "" && c.Protocol() != client.Version20260728 || want != "" && c.Protocol() != want {
				t.Fatalf("Protocol() = %q for era %q", c.Protocol(), era)
			}
			out, res := ferrytest.Call[greetOut](t, c, "greet", greetIn{Name: "ada"})
			if out.Greeting != "Hello, ada" || res.IsError {
				t.Errorf("greet = %+v (%s)", out, res.Raw)
			}
			if got := c.CallTool(t.Context(), "confirm", nil).Text(); got != "decline" {
				t.Errorf("confirm = %q, want the elicited decline", got)
			}
			if got := c.CallTool(t.Context(), "haiku", nil).Text(); got != "old pond" {
				t.Errorf("haiku = %q, want the sampled text", got)
			}
			if res := c.CallTool(t.Context(), "greet", map[string]string{"name": ""}); !res.IsError {
				t.Errorf("greet with an empty name = %s, want an error result", res.Raw)
			}
			var names []string
			for _, tl := range c.ListTools(t.Context()) {
				names = append(names, tl.Name)
			}
			if !slices.Equal(names, []string{"confirm", "greet", "haiku"}) {
				t.Errorf("anonymous tools = %v (purge is for admins)", names)
			}
			if msg := c.GetPrompt(t.Context(), "welcome", map[string]string{"user": "alan"}).Messages; len(msg) != 1 || msg[0].Content.Text != "Welcome, alan" {
				t.Errorf("welcome = %+v", msg)
			}
			if got := c.ReadResource(t.Context(), "kit://users/7").Contents; len(got) != 1 || got[0].Text != "user 7" {
				t.Errorf("read = %+v", got)
			}
			if got := c.Complete(t.Context(), &client.CompleteRequest{RefType: "ref/prompt", Name: "welcome", Argument: "user", Value: "a"}); !slices.Equal(got, []string{"ada", "alan"}) {
				t.Errorf("complete = %v", got)
			}
		})
	}
}

// A client with a principal sees and calls what the principal may; one
// without does not.
func TestNewClientPrincipal(t *testing.T) {
	for _, era := range eras {
		t.Run("era="+era, func(t *testing.T) {
			srv := newServer()
			admin := ferrytest.NewClient(t, srv, &ferrytest.Options{Protocol: era, Principal: &ferry.Principal{Subject: "root", Roles: []string{"admin"}}})
			if got := admin.CallTool(t.Context(), "purge", nil).Text(); got != "purged by root" {
				t.Errorf("purge as admin = %q", got)
			}
			guest := ferrytest.NewClient(t, srv, &ferrytest.Options{Protocol: era, Principal: &ferry.Principal{Subject: "guest"}})
			if _, err := guest.Raw().CallTool(t.Context(), "purge", nil); err == nil {
				t.Error("purge as a guest: no error, want the unknown tool's")
			}
		})
	}
}

// keyed serves srv at /mcp to the holder of the API key only, as an
// application's middleware would.
func keyed(srv *ferry.Server) http.Handler {
	mcp := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k-1" {
			http.Error(w, "an API key is required", http.StatusUnauthorized)
			return
		}
		mcp.ServeHTTP(w, r)
	}))
	return mux
}

// DialHandler reaches a server behind middleware, sending Options.Header
// with every request of either era, and serves as Options.Principal.
func TestDialHandler(t *testing.T) {
	for _, era := range eras {
		t.Run("era="+era, func(t *testing.T) {
			h := keyed(newServer())
			errs := failures(t, func(tb testing.TB) { ferrytest.DialHandler(tb, h, &ferrytest.Options{Protocol: era}) })
			if len(errs) != 1 || !strings.Contains(errs[0], "ferrytest: connecting") || !strings.Contains(errs[0], "401") {
				t.Errorf("without the key: %q, want a failed connection (401)", errs)
			}
			c := ferrytest.DialHandler(t, h, &ferrytest.Options{Protocol: era, Header: http.Header{"X-Api-Key": {"k-1"}},
				Principal: &ferry.Principal{Subject: "root", Roles: []string{"admin"}}})
			if out, _ := ferrytest.Call[greetOut](t, c, "greet", greetIn{Name: "ada"}); out.Greeting != "Hello, ada" {
				t.Errorf("greet = %+v", out)
			}
			if got := c.CallTool(t.Context(), "purge", nil).Text(); got != "purged by root" {
				t.Errorf("purge = %q, want it run as the principal", got)
			}
		})
	}
}

// A header key given as it is usually written, not in Go's canonical
// form, reaches an in-process handler as net/http would deliver it from
// the network.
func TestOptionsHeaderKeysAreCanonical(t *testing.T) {
	c := ferrytest.DialHandler(t, keyed(newServer()), &ferrytest.Options{Header: http.Header{"X-API-Key": {"k-1"}}})
	if got := c.CallTool(t.Context(), "greet", greetIn{Name: "al"}).Text(); got != `{"greeting":"Hello, al"}` {
		t.Errorf("greet = %s", got)
	}
}

// DialHTTP reaches a server at a URL in either era; a principal, which
// only an in-process server can take, fails the test with a sentence
// that says what to do instead.
func TestDialHTTP(t *testing.T) {
	ts := httptest.NewServer(keyed(newServer()))
	t.Cleanup(ts.Close)
	for _, era := range eras {
		t.Run("era="+era, func(t *testing.T) {
			c := ferrytest.DialHTTP(t, ts.URL+"/mcp", &ferrytest.Options{Protocol: era, Header: http.Header{"X-Api-Key": {"k-1"}}})
			if got := c.CallTool(t.Context(), "greet", greetIn{Name: "bo"}).Text(); got != `{"greeting":"Hello, bo"}` {
				t.Errorf("greet = %s", got)
			}
		})
	}
	errs := failures(t, func(tb testing.TB) {
		ferrytest.DialHTTP(tb, ts.URL+"/mcp", &ferrytest.Options{Principal: &ferry.Principal{Subject: "root"}})
	})
	if len(errs) != 1 || !strings.Contains(errs[0], "send credentials in Options.Header") {
		t.Errorf("a principal over HTTP: %q", errs)
	}
}
