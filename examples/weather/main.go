// Command weather serves one Connect service two ways from the same
// handler: Connect (and gRPC) at /, and MCP at /mcp, where
// protoc-gen-ferry's generated code turns its unary methods into tools and
// the prompt its .proto declares into a prompt. Every tool call goes
// through the Connect handler in process, so the service's interceptors
// (here an API-key check and an audit log) see and can refuse it.
//
// Run it in this directory, a module of its own:
//
//	WEATHER_KEYS=k-ada go run .
//
// then call the service as a Connect client would:
//
//	curl -s http://127.0.0.1:8080/weather.v1.WeatherService/GetForecast \
//	  -H 'Content-Type: application/json' -d '{"city":"Lisbon","days":2}'
//
// or point an MCP client at http://127.0.0.1:8080/mcp; set_alert needs
// Authorization: Bearer k-ada there as on the Connect side.
//
// The code under gen/ is generated from proto/weather/v1/weather.proto by
// tools/protoc.sh at the repository root (protoc-gen-go,
// protoc-gen-connect-go and protoc-gen-ferry); CI fails if it is stale.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	keys := map[string]bool{}
	for k := range strings.SplitSeq(os.Getenv("WEATHER_KEYS"), ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys[k] = true
		}
	}
	h, err := NewHandler(&Weather{}, keys, logger)
	if err != nil {
		fmt.Fprintln(os.Stderr, "weather:", err)
		os.Exit(1)
	}
	logger.Info("serving", "connect", "http://"+*addr+"/", "mcp", "http://"+*addr+"/mcp")
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "weather:", err)
		os.Exit(1)
	}
}
