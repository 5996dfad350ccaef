package ferry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// A replica serves /healthz and /readyz beside its MCP endpoint, outside
// its authentication: readiness checks the session store and the
// database, and fails once the replica begins to stop.
func ExampleNewHealthHandler() {
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true})
	dbUp := true
	health := ferry.NewHealthHandler(&ferry.HealthOptions{
		Handlers: []*ferry.HTTPHandler{h},
		Checks: []ferry.HealthCheck{{Name: "orders-db", Check: func(ctx context.Context) error {
			if !dbUp { // db.PingContext in a service
				return errors.New("dial tcp 10.0.0.5:5432: connect: connection refused")
			}
			return nil
		}}},
		CacheFor: -1, // for the example; keep the default in a service
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h) // behind its authentication in a service
	health.Mount(mux)

	get := func(path string) {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		var body struct {
			Status string
			Checks []struct {
				Name, Error string
				OK          bool
			}
		}
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		fmt.Println(path, w.Code, body.Status)
		for _, c := range body.Checks {
			fmt.Printf("  %s ok=%v%s\n", c.Name, c.OK, strings.TrimRight(" "+c.Error, " "))
		}
	}
	get("/healthz")
	get("/readyz")
	dbUp = false
	get("/readyz")
	dbUp = true
	health.StartDraining() // on SIGTERM, before ferry.ShutdownHTTPServer
	get("/readyz")
	// Output:
	// /healthz 200 alive
	// /readyz 200 ready
	//   drain ok=true
	//   session store (memory) ok=true
	//   orders-db ok=true
	// /readyz 503 not ready
	//   drain ok=true
	//   session store (memory) ok=true
	//   orders-db ok=false dial tcp 10.0.0.5:5432: connect: connection refused
	// /readyz 503 not ready
	//   drain ok=false the server is stopping: it will shut down shortly
}
