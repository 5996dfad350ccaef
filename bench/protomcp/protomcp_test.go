package protomcpbench

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/ferry-mcp/ferry"
	weatherv1 "github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1"
	"github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1/weatherv1connect"
	"github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1/weatherv1ferry"
	"github.com/ferry-mcp/ferry/protomcp"
)

// The protomcp benchmarks measure what serving a Connect method as an MCP
// tool costs, with the code protoc-gen-ferry generated for
// examples/weather: the same GetForecast (a two-day forecast for Lisbon)
// made four ways:
//
//   - connect_json and connect_proto: a Connect client's unary call served
//     by the service's Connect handler (protojson or binary), as net/http
//     would hand it over: the baseline;
//   - mcp_handler: the generated tool's tools/call through Ferry's HTTP
//     handler (2026-07-28, stateless), decoded strictly, checked with
//     protovalidate, and dispatched in process through the same Connect
//     handler (protomcp.Handler), whose interceptors run;
//   - mcp_direct: the same tools/call dispatched to the implementation
//     directly (the generated WeatherServiceDirect), with no Connect
//     handler in between.
//
// Requests, bodies and response writers are reused, so allocs/op counts
// only the handlers'.
//
//	go test -run '^$' -bench Protomcp -benchmem -count 5 -cpu 1

// forecaster answers GetForecast with a fixed two-day forecast, so that
// the benchmarks measure the path, not the work.
type forecaster struct {
	weatherv1connect.UnimplementedWeatherServiceHandler
}

func (forecaster) GetForecast(_ context.Context, req *connect.Request[weatherv1.GetForecastRequest]) (*connect.Response[weatherv1.GetForecastResponse], error) {
	return connect.NewResponse(&weatherv1.GetForecastResponse{City: req.Msg.GetCity(), Days: []*weatherv1.DayForecast{
		{Date: "2026-12-01", LowC: 9, HighC: 16, Sky: weatherv1.Sky_SKY_SUNNY},
		{Date: "2026-12-02", LowC: 8, HighC: 14, Sky: weatherv1.Sky_SKY_RAIN},
	}}), nil
}

const forecastArgs = `{"city":"Lisbon","days":2}`

// weatherMCP returns Ferry's HTTP handler serving the generated tools
// through d.
func weatherMCP(b *testing.B, d protomcp.Dispatcher) http.Handler {
	b.Helper()
	srv := ferry.NewServer("weather", "1", benchOptions())
	if err := weatherv1ferry.AddWeatherServiceTools(srv, d, nil); err != nil {
		b.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		b.Fatal(err)
	}
	return ferry.NewHTTPHandler(srv, nil)
}

func BenchmarkProtomcp(b *testing.B) {
	mux := http.NewServeMux()
	mux.Handle(weatherv1connect.NewWeatherServiceHandler(forecaster{}))
	b.Run("connect_json", func(b *testing.B) {
		hdr := http.Header{"Content-Type": {"application/json"}, "Connect-Protocol-Version": {"1"}}
		benchConnect(b, mux, hdr, []byte(forecastArgs), `"city":"Lisbon"`)
	})
	b.Run("connect_proto", func(b *testing.B) {
		hdr := http.Header{"Content-Type": {"application/proto"}, "Connect-Protocol-Version": {"1"}}
		benchConnect(b, mux, hdr, []byte("\x0a\x06Lisbon\x10\x02"), "Lisbon")
	})
	call := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_forecast","arguments":` + forecastArgs +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	hdr := func() http.Header {
		return http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"get_forecast"}}
	}
	b.Run("mcp_handler", func(b *testing.B) {
		benchMCPTool(b, weatherMCP(b, protomcp.Handler(mux)), hdr(), call)
	})
	b.Run("mcp_direct", func(b *testing.B) {
		benchMCPTool(b, weatherMCP(b, weatherv1ferry.WeatherServiceDirect(forecaster{})), hdr(), call)
	})
}

// benchConnect measures one unary Connect call served by h.
func benchConnect(b *testing.B, h http.Handler, hdr http.Header, payload []byte, want string) {
	b.Helper()
	req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "http://localhost/weather.v1.WeatherService/GetForecast", nil)
	req.Header = hdr
	req.ContentLength = int64(len(payload))
	var rb body
	w := &recorder{header: http.Header{}}
	serve := func() {
		w.reset()
		rb.Reset(payload)
		req.Body = &rb
		h.ServeHTTP(w, req)
	}
	serve()
	if w.code != http.StatusOK || !strings.Contains(w.body.String(), want) {
		b.Fatalf("HTTP %d: %s", w.code, w.body.Bytes())
	}
	b.ReportAllocs()
	for b.Loop() {
		serve()
		if w.code != http.StatusOK {
			b.Fatalf("HTTP %d: %s", w.code, w.body.Bytes())
		}
	}
}

// benchMCPTool measures one tools/call served by h, checking the first
// answer is the forecast.
func benchMCPTool(b *testing.B, h http.Handler, hdr http.Header, payload []byte) {
	b.Helper()
	req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "http://localhost/mcp", nil)
	req.Header = hdr
	req.ContentLength = int64(len(payload))
	var rb body
	w := &recorder{header: http.Header{}}
	serve := func() {
		w.reset()
		rb.Reset(payload)
		req.Body = &rb
		h.ServeHTTP(w, req)
	}
	serve()
	if w.code != http.StatusOK || !strings.Contains(w.body.String(), `"structuredContent":{"city":"Lisbon","days":[{"date":"2026-12-01","highC":16,"lowC":9,"sky":"SKY_SUNNY"}`) {
		b.Fatalf("HTTP %d: %s", w.code, w.body.Bytes())
	}
	b.ReportAllocs()
	for b.Loop() {
		serve()
		if w.code != http.StatusOK {
			b.Fatalf("HTTP %d: %s", w.code, w.body.Bytes())
		}
	}
}

// recorder is a reusable http.ResponseWriter that allocates nothing once
// warm, so that allocs/op counts only the handler's own allocations (as
// the bench module's own).
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *recorder) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

func (w *recorder) Flush() {}

func (w *recorder) reset() {
	clear(w.header)
	w.code = 0
	w.body.Reset()
}

// benchOptions are the server's options, as the bench module's: the load
// comes from one caller, so the per-caller limits are off.
func benchOptions() *ferry.ServerOptions {
	return &ferry.ServerOptions{Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1}, Logger: slog.New(slog.DiscardHandler)}
}

// body is a reusable request body.
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }
