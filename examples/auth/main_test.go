package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/internal/wiretest"
)

// With API keys, a call without a key gets 401 and one with a key is
// answered as its subject.
func TestAPIKeysProtectTheEndpoint(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	mux, closeKeys, err := protect(ferry.NewHTTPHandler(newServer(logger), nil), config{apiKeys: "ci-bot:k-5b1e9a2f"}, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer closeKeys()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	call := func(key string) (int, string) {
		header := wiretest.Modern("tools/call", "whoami")
		if key != "" {
			header = append(header, "X-API-Key", key)
		}
		a := wiretest.Post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{},`+wiretest.Meta+`}}`, header...)
		return a.Status, a.Body
	}
	if status, _ := call(""); status != http.StatusUnauthorized {
		t.Errorf("without a key: %d, want 401", status)
	}
	if status, body := call("k-5b1e9a2f"); status != http.StatusOK || !strings.Contains(body, `"subject":"ci-bot"`) {
		t.Errorf("with the key: %d %s", status, body)
	}
}

func TestNoCredentialsIsAnError(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	if _, _, err := protect(ferry.NewHTTPHandler(newServer(logger), nil), config{}, logger); err == nil {
		t.Error("a server without credentials started")
	}
	if _, _, err := protect(ferry.NewHTTPHandler(newServer(logger), nil), config{apiKeys: "nokey"}, logger); err == nil {
		t.Error("a malformed FERRY_API_KEYS was accepted")
	}
	// A key given twice would be the last subject's only, silently.
	if _, _, err := protect(ferry.NewHTTPHandler(newServer(logger), nil), config{apiKeys: "alice:k-same-0123,bob:k-same-0123"}, logger); err == nil {
		t.Error("a key shared by two subjects was accepted")
	}
}

// Some but not all of the OAuth flags is an error naming what is missing.
func TestPartialOAuthFlagsNameTheMissingOne(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		c    config
		want string
	}{
		{config{issuer: "https://login.example.com"}, "-issuer given without -jwks and -resource"},
		{config{issuer: "https://login.example.com", jwks: "https://login.example.com/jwks"}, "-issuer and -jwks given without -resource"},
		{config{resource: "http://127.0.0.1:8080/mcp", apiKeys: "ci-bot:k-5b1e9a2f"}, "-resource given without -issuer and -jwks"},
	} {
		_, _, err := protect(ferry.NewHTTPHandler(newServer(logger), nil), tc.c, logger)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q...", tc.c, err, tc.want)
		}
	}
}
