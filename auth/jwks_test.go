package auth

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// A JWKS is followed through at most 3 redirects: a chain of 3 reaches
// the document, one of 4 is refused before it, and the given client's own
// CheckRedirect is still asked.
func TestKeySetRedirectsAreCounted(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if n > 0 {
			http.Redirect(w, r, srv.URL+"/r/"+strconv.Itoa(n-1), http.StatusFound)
			return
		}
		_, _ = w.Write([]byte(`{"keys":[]}`)) // reached: refused for having no key
	}))
	defer srv.Close()
	asked := 0
	own := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { asked++; return nil }}
	for hops, want := range map[int]string{3: "without a usable signing key", 4: "too many redirects"} {
		s, err := NewRemoteKeySet(srv.URL+"/r/"+strconv.Itoa(hops), &RemoteKeySetOptions{Client: own, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Refresh(t.Context())
		_ = s.Close()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d redirects: %v, want %q", hops, err, want)
		}
	}
	if asked != 3+3 {
		t.Errorf("the client's CheckRedirect was asked %d times, want 6", asked)
	}
}
