package workbench_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/workbench"
)

// The keys of the test server: a reader of the trace and a caller that
// may call /mcp but not read the trace.
const (
	readerKey = "reader-key-0123456789"
	otherKey  = "other-key-0123456789"
)

// A secret argument and a secret result, which no trace may hold.
const (
	secretArg    = "s3cret-argument"
	secretResult = "s3cret-result"
)

type echoIn struct {
	Text string `json:"text" doc:"Text to echo." minLength:"1"`
	N    int    `json:"n,omitzero" doc:"A small number." minimum:"0" maximum:"5"`
}

type echoOut struct {
	Value string `json:"value"`
}

type topicArgs struct {
	Topic string `json:"topic" doc:"The topic."`
}

// newServer returns a server with tools that answer in each way a trace
// records: ok, refused, an error of the tool's own, and a panic.
func newServer(obs ferry.Observer) *ferry.Server {
	srv := ferry.NewServer("wb-test", "1.0.0", &ferry.ServerOptions{Observer: obs, Logger: slog.New(slog.DiscardHandler)})
	ferry.AddTool(srv, ferry.Tool{Name: "echo", Description: "Echoes.", ReadOnly: true},
		func(_ context.Context, in echoIn) (echoOut, error) {
			return echoOut{Value: secretResult + in.Text}, nil
		})
	ferry.AddTool(srv, ferry.Tool{Name: "refuse", Description: "Refuses.", ReadOnly: true},
		func(_ context.Context, in echoIn) (echoOut, error) {
			return echoOut{}, ferry.NotFound("no order " + in.Text)
		})
	ferry.AddTool(srv, ferry.Tool{Name: "fail", Description: "Fails.", ReadOnly: true},
		func(_ context.Context, in echoIn) (echoOut, error) { return echoOut{}, errors.New("the disk is full") })
	ferry.AddTool(srv, ferry.Tool{Name: "crash", Description: "Panics.", ReadOnly: true},
		func(_ context.Context, in echoIn) (echoOut, error) { panic("crash " + in.Text) })
	ferry.AddPrompt(srv, ferry.Prompt{Name: "brief", Description: "A brief."},
		func(_ context.Context, a topicArgs) ([]ferry.PromptMessage, error) {
			return []ferry.PromptMessage{ferry.UserMessage(ferry.Text("about " + a.Topic))}, nil
		})
	srv.AddResource(ferry.Resource{URI: "test://note", Name: "note", MIMEType: "text/plain"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: secretResult}}, nil
		})
	return srv
}

// site is a server as the demo mounts it: MCP at /mcp behind API keys,
// the workbench at /ui/ with its trace behind the same keys, readable
// by readerKey's caller only.
type site struct {
	mux   *http.ServeMux
	mcp   *ferry.HTTPHandler
	trace *workbench.Trace
	srv   *ferry.Server
}

func newSite(t *testing.T, traceOpts *workbench.TraceOptions) *site {
	t.Helper()
	trace := workbench.NewTrace(traceOpts)
	srv := newServer(trace)
	keys, err := auth.NewStaticKeys(map[string]*ferry.Principal{
		readerKey: {Subject: "reader"},
		otherKey:  {Subject: "other"},
	})
	if err != nil {
		t.Fatal(err)
	}
	mw := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{auth.APIKeys(keys.Lookup, nil)},
		Logger: slog.New(slog.DiscardHandler)})
	h := ferry.NewHTTPHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mw(h))
	workbench.New(h, &workbench.Options{Title: "wb-test", Trace: trace, Auth: mw,
		MayReadTrace: func(p *ferry.Principal) bool { return p != nil && p.Subject == "reader" },
	}).Mount(mux, "/ui")
	return &site{mux: mux, mcp: h, trace: trace, srv: srv}
}

// client connects to the site's /mcp with key.
func (s *site) client(t *testing.T, key string) *ferrytest.Client {
	t.Helper()
	return ferrytest.DialHandler(t, s.mux, &ferrytest.Options{Header: http.Header{"Authorization": {"Bearer " + key}}})
}

// get serves a request to the site and returns its answer.
func (s *site) get(t *testing.T, method, target string, header http.Header) *http.Response {
	t.Helper()
	r := httptest.NewRequestWithContext(t.Context(), method, "http://localhost"+target, nil)
	for k, vs := range header {
		r.Header[k] = vs
	}
	w := httptest.NewRecorder()
	s.mux.ServeHTTP(w, r)
	return w.Result()
}

// tracePage is the trace endpoint's answer.
type tracePage struct {
	Events []struct {
		Seq        uint64  `json:"seq"`
		Time       string  `json:"time"`
		Method     string  `json:"method"`
		Name       string  `json:"name"`
		Caller     string  `json:"caller"`
		Client     string  `json:"client"`
		Outcome    string  `json:"outcome"`
		Code       string  `json:"code"`
		Message    string  `json:"message"`
		DurationMs float64 `json:"durationMs"`
	} `json:"events"`
	Next uint64 `json:"next"`
}

// readTrace reads the trace after seq as readerKey's caller, and returns
// the page and its raw body.
func (s *site) readTrace(t *testing.T, after string) (tracePage, string) {
	t.Helper()
	res := s.get(t, http.MethodGet, "/ui/trace?after="+after, http.Header{"Authorization": {"Bearer " + readerKey}})
	body := readAll(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /ui/trace?after=%s: %d %s", after, res.StatusCode, body)
	}
	var p tracePage
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("the trace is not JSON: %v\n%s", err, body)
	}
	return p, body
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
