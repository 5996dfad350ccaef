package client_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/client"
)

// When the modern era fails and the legacy fallback fails too, the error
// tells of both attempts, so that the first answer is not lost.
func TestFallbackErrorKeepsTheDiscoverAnswer(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no MCP here", http.StatusNotFound)
	}))
	t.Cleanup(ts.Close)
	_, err := client.DialHTTP(t.Context(), ts.URL, nil)
	if err == nil {
		t.Fatal("DialHTTP of a server that is not one succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, "server/discover") || strings.Count(msg, "404") < 2 {
		t.Errorf("the error does not tell of both attempts: %v", err)
	}
}
