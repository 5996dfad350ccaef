package auth

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A response's Cache-Control sets how long a set is cached, within
// RefreshInterval and MaxAge.
func TestKeySetTTL(t *testing.T) {
	s, err := NewRemoteKeySet("https://login.example.com/jwks", &RemoteKeySetOptions{RefreshInterval: time.Minute, MaxAge: time.Hour, TTL: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for cc, want := range map[string]time.Duration{
		"":                        10 * time.Minute,
		"max-age=300":             5 * time.Minute,
		"public, MAX-AGE=\"120\"": 2 * time.Minute,
		"max-age=5":               time.Minute,
		"max-age=999999999999999": time.Hour,
		"max-age=-1":              10 * time.Minute,
		"max-age=soon":            10 * time.Minute,
		"no-store":                time.Minute,
		"max-age=600, no-cache":   time.Minute,
	} {
		if got := s.ttl(cc); got != want {
			t.Errorf("ttl(%q) = %s, want %s", cc, got, want)
		}
	}
}

// A redirect off https (and off loopback) is refused, with a client of
// the caller's own too.
func TestKeySetRedirectsAreHeld(t *testing.T) {
	srv := httptest.NewServer(http.RedirectHandler("http://jwks.example.com/keys", http.StatusFound))
	defer srv.Close()
	for name, client := range map[string]*http.Client{"own": nil, "given": {}} {
		s, err := NewRemoteKeySet(srv.URL, &RemoteKeySetOptions{Client: client, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Refresh(t.Context())
		_ = s.Close()
		if err == nil || !strings.Contains(err.Error(), "neither https nor http on loopback") {
			t.Errorf("%s client: %v, want the redirect refused", name, err)
		}
	}
}
