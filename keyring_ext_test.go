package ferry_test

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// A replica given a session id signed by a replica with other keys
// refuses it, as a forgery, and tells the operator why, once a minute at
// most: that is the only sign of replicas whose SigningKeys differ.
func TestTokenOfAnotherKeyIsLoggedWithAHint(t *testing.T) {
	a := ferry.NewServer("a", "1", &ferry.ServerOptions{Logger: discard, SigningKeys: [][]byte{[]byte("key-of-replica-a")}})
	logs := &ferrytest.Buffer{}
	b := ferry.NewServer("b", "1", &ferry.ServerOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	tsA := httptest.NewServer(ferry.NewHTTPHandler(a, nil))
	t.Cleanup(tsA.Close)
	tsB := httptest.NewServer(ferry.NewHTTPHandler(b, nil))
	t.Cleanup(tsB.Close)
	id := initLegacy(t, tsA.URL, `{}`)
	for range 3 {
		status, _, body := post(t, tsB.URL, "", id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Protocol-Version", "2025-03-26")
		if status != 404 {
			t.Fatalf("replica B answered %d %s to replica A's session", status, body)
		}
	}
	got := logs.String()
	if n := strings.Count(got, "signed with a key this server does not hold"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, got)
	}
	if !strings.Contains(got, "ServerOptions.SigningKeys is empty") || !strings.Contains(got, "token=session") {
		t.Errorf("the log does not say why:\n%s", got)
	}
	// A token that is not even well formed is noise, not a key problem.
	logs2 := &ferrytest.Buffer{}
	c := ferry.NewServer("c", "1", &ferry.ServerOptions{Logger: slog.New(slog.NewTextHandler(logs2, nil))})
	tsC := httptest.NewServer(ferry.NewHTTPHandler(c, nil))
	t.Cleanup(tsC.Close)
	post(t, tsC.URL, "", "not-a-token", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Protocol-Version", "2025-03-26")
	if strings.Contains(logs2.String(), "signed with a key") {
		t.Errorf("a malformed id was logged as another key's: %s", logs2)
	}
}
