package route_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"testing"

	"github.com/ferry-mcp/ferry/route"
	"github.com/google/go-cmp/cmp"
)

func TestOnlyTheNamedHeadersTravel(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), &route.Options{
		Forward: []string{"x-tenant"},
		Header:  http.Header{"X-Service": {"orders-agent"}, "Authorization": {"Bearer service-token"}},
		Host:    "orders.internal",
	})
	m.serve(t)
	mcpHeaders := []string{
		"Authorization", "Bearer user-token", "Cookie", "sid=1", "X-Tenant", "acme",
		"Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "Tracestate", "vendor=1",
		"X-Secret", "must not travel", "X-User", "ada", "User-Agent", "agent/1", "X-Forwarded-For", "10.0.0.1",
	}
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			r := m.call(t, e, "status", `{}`, mcpHeaders...)
			var s seen
			if err := json.Unmarshal(r.Structured, &s); err != nil {
				t.Fatalf("%+v: %v", r, err)
			}
			want := map[string][]string{
				"Accept":        {"application/json, application/problem+json, */*;q=0.5"},
				"Authorization": {"Bearer user-token"}, // the caller's own, over the fixed one
				"Cookie":        {"sid=1"},
				"Mcp-Tool":      {"status"},
				"Traceparent":   {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
				"Tracestate":    {"vendor=1"},
				"X-Request-Id":  {s.RequestID},
				"X-Service":     {"orders-agent"},
				"X-Tenant":      {"acme"},
			}
			if e == legacy {
				want["Mcp-Session-Id"] = s.Header["Mcp-Session-Id"]
				if len(want["Mcp-Session-Id"]) != 1 || want["Mcp-Session-Id"][0] == "" {
					t.Errorf("no Mcp-Session-Id: %v", s.Header)
				}
			}
			if diff := cmp.Diff(want, s.Header); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(s.RequestID) {
				t.Errorf("X-Request-Id %q", s.RequestID)
			}
			if s.Agent != "status" || s.Principal != "ada" || s.Host != "orders.internal" || s.RemoteAddr != "mcp" {
				t.Errorf("agent %q, principal %q, host %q, remote %q; want status, ada, orders.internal, mcp",
					s.Agent, s.Principal, s.Host, s.RemoteAddr)
			}
		})
	}
	t.Run("fixed headers without a caller's own", func(t *testing.T) {
		r := m.call(t, modern, "status", `{}`)
		var s seen
		_ = json.Unmarshal(r.Structured, &s)
		if got := s.Header["Authorization"]; !slices.Equal(got, []string{"Bearer service-token"}) {
			t.Errorf("Authorization %v, want the service token", got)
		}
	})
	t.Run("a fixed Accept replaces the default", func(t *testing.T) {
		m := newMCPServer(t)
		testBinding(m, service(nil), &route.Options{Header: http.Header{"accept": {"application/vnd.orders+json"}}})
		m.serve(t)
		var s seen
		_ = json.Unmarshal(m.call(t, modern, "status", `{}`).Structured, &s)
		if got := s.Header["Accept"]; !slices.Equal(got, []string{"application/vnd.orders+json"}) {
			t.Errorf("Accept %v", got)
		}
	})
	t.Run("each routed request has its own id", func(t *testing.T) {
		ids := map[string]bool{}
		for range 5 {
			var s seen
			_ = json.Unmarshal(m.call(t, modern, "status", `{}`).Structured, &s)
			ids[s.RequestID] = true
		}
		if len(ids) != 5 {
			t.Errorf("ids %v", slices.Collect(maps.Keys(ids)))
		}
	})
}
