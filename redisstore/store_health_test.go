package redisstore

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// Readiness fails, naming the store, while the Redis of the handler's
// store is down, and is back once it answers again; liveness answers
// throughout. The Redis is one of the test's own, never the shared one.
func TestReadinessFollowsRedis(t *testing.T) {
	r := startRedis(t)
	store, err := Dial(t.Context(), "redis://"+r.addr()+"/0", &Options{Prefix: "health:", Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	srv := ferry.NewServer("s", "1", nil)
	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: store})
	defer func() { _ = h.Shutdown(context.Background()) }()
	health := ferry.NewHealthHandler(&ferry.HealthOptions{Handlers: []*ferry.HTTPHandler{h}, CacheFor: -1})

	ready := func() (int, string, string) {
		t.Helper()
		w := httptest.NewRecorder()
		health.ServeHTTP(w, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/readyz", nil))
		var b struct {
			Checks []struct {
				Name, Error string
				OK          bool
			}
		}
		if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
			t.Fatalf("%d %q: %v", w.Code, w.Body, err)
		}
		for _, c := range b.Checks {
			if c.Name == "session store (redis)" {
				return w.Code, c.Error, w.Body.String()
			}
		}
		t.Fatalf("no check of the store: %s", w.Body)
		return 0, "", ""
	}
	if code, why, body := ready(); code != http.StatusOK || why != "" {
		t.Fatalf("with Redis up: %s", body)
	}

	r.kill()
	start := time.Now()
	code, why, body := ready()
	if code != http.StatusServiceUnavailable || !strings.Contains(why, "redisstore: ping") {
		t.Fatalf("with Redis down: %d %s", code, body)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the probe took %v with Redis down", took)
	}
	w := httptest.NewRecorder()
	health.ServeHTTP(w, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/healthz", nil))
	if w.Code != http.StatusOK {
		t.Errorf("liveness with Redis down: %d %s", w.Code, w.Body)
	}

	r.start()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _, body = ready()
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready 10s after Redis came back: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
