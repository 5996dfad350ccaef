package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
)

// stdioServerArg, the first argument of a re-executed test binary, makes
// it serve shopServer on stdio instead of running tests.
const stdioServerArg = "ferry-cli-test-stdio-server"

// silentServerArg makes a re-executed test binary a stdio server that
// reads its input and never answers.
const silentServerArg = "ferry-cli-test-silent-server"

// orphanServerArg makes a re-executed test binary a stdio server that
// first starts a child of its own (the binary again, with sleeperArg) that
// inherits its stdout and stderr and outlives it, as a shell script's
// background job does.
const orphanServerArg = "ferry-cli-test-orphan-server"

// sleeperArg makes a re-executed test binary sleep for a while and exit.
const sleeperArg = "ferry-cli-test-sleeper"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sleeperArg {
		time.Sleep(20 * time.Second)
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == orphanServerArg {
		exe, err := os.Executable()
		if err == nil {
			child := exec.Command(exe, sleeperArg)
			child.Stdout, child.Stderr = os.Stdout, os.Stderr
			err = child.Start()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "orphan server:", err)
			os.Exit(1)
		}
		os.Args[1] = stdioServerArg
	}
	if len(os.Args) > 1 && os.Args[1] == hostileStderrArg {
		serveHostileStderr()
	}
	if len(os.Args) > 1 && os.Args[1] == silentServerArg {
		_, _ = io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Minute) // stdin closed: still no answer, until killed
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == stdioServerArg {
		if err := shopServer(nil).Run(context.Background(), &ferry.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "stdio server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// stdioCommand is the target of the test binary serving shopServer on
// stdio: the arguments after "--".
func stdioCommand(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{"--", exe, stdioServerArg}
}

// orderIn is get_order's input.
type orderIn struct {
	ID int `json:"id" doc:"The order's number." minimum:"1"`
}

// order is what get_order returns.
type order struct {
	ID     int    `json:"id"`
	Status string `json:"status"`
}

// shopServer is a well-declared Ferry server: every tool, prompt and
// resource is described, titled and hinted, so lint finds nothing. opts
// may narrow its protocol versions; it logs nothing.
func shopServer(opts *ferry.ServerOptions) *ferry.Server {
	var o ferry.ServerOptions
	if opts != nil {
		o = *opts
	}
	o.Logger = slog.New(slog.DiscardHandler)
	srv := ferry.NewServer("shop", "1.0.0", &o)
	ferry.AddTool(srv, ferry.Tool{Name: "get_order", Title: "Get an order",
		Description: "Returns one order by its number, with its status.", ReadOnly: true, ClosedWorld: true},
		func(_ context.Context, in orderIn) (order, error) {
			if in.ID > 100 {
				return order{}, ferry.NotFound(fmt.Sprintf("no order %d", in.ID))
			}
			return order{ID: in.ID, Status: "shipped"}, nil
		})
	ferry.AddTool(srv, ferry.Tool{Name: "whoami", Title: "Who am I",
		Description: "Names the caller the server authenticated.", ReadOnly: true, ClosedWorld: true},
		func(ctx context.Context, _ struct{}) (string, error) {
			if p, ok := ferry.PrincipalFromContext(ctx); ok {
				return p.Subject, nil
			}
			return "anonymous", nil
		})
	srv.AddPromptTemplate(ferry.Prompt{Name: "summarize_order", Title: "Summarize an order",
		Description: "Asks for a short summary of one order for a customer email.",
		Arguments:   []ferry.PromptArgument{{Name: "id", Description: "The order's number.", Required: true}},
		Template:    "Summarize order {{id}} in two sentences."})
	srv.AddResource(ferry.Resource{URI: "shop://catalog", Name: "catalog", Title: "Catalog",
		Description: "Every product the shop sells.", MIMEType: "text/plain"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: "kettle, teapot"}}, nil
		})
	srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "shop://orders/{id}", Name: "order", Title: "Order",
		Description: "One order, as JSON.", MIMEType: "application/json"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "application/json", Text: `{"id":` + strconv.Quote(req.Vars["id"]) + `}`}}, nil
		})
	return srv
}

// httpServer serves srv over Streamable HTTP on a loopback socket, behind
// mw when it is not nil, and returns the MCP endpoint's URL.
func httpServer(t *testing.T, srv *ferry.Server, mw func(http.Handler) http.Handler) string {
	t.Helper()
	var h http.Handler = ferry.NewHTTPHandler(srv, nil)
	if mw != nil {
		h = mw(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// apiKeyMiddleware requires the API key key (as a bearer token or
// X-API-Key) and makes the caller the principal "ci-job".
func apiKeyMiddleware(t *testing.T, key string) func(http.Handler) http.Handler {
	t.Helper()
	keys, err := auth.NewStaticKeys(map[string]*ferry.Principal{key: {Subject: "ci-job"}})
	if err != nil {
		t.Fatal(err)
	}
	return auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{auth.APIKeys(keys.Lookup, nil)}})
}

// rawServer is a JSON-RPC server over HTTP, written by hand so that it can
// list what Ferry refuses to serve: it speaks the legacy era (2025-11-25)
// only, answers the list methods from pages of raw items, and
// server/discover, like any unknown method, with 404 and "method not
// found".
type rawServer struct {
	// pages holds, by list method, the raw items of each page.
	pages map[string][][]string
}

func (s *rawServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Cursor string `json:"cursor"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "not JSON-RPC", http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result, err := s.answer(req.Method, req.Params.Cursor)
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":%q}}`, req.ID, err.Error())
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
}

// answer returns the result of method, for the page after cursor.
func (s *rawServer) answer(method, cursor string) (string, error) {
	if method == "initialize" {
		return `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{},"resources":{}},` +
			`"serverInfo":{"name":"bad","version":"0.1"}}`, nil
	}
	key := map[string]string{"tools/list": "tools", "prompts/list": "prompts",
		"resources/list": "resources", "resources/templates/list": "resourceTemplates"}[method]
	if key == "" {
		return "", errors.New("method not found: " + method)
	}
	pages := s.pages[method]
	page := 0
	if cursor != "" {
		if _, err := fmt.Sscanf(cursor, "page-%d", &page); err != nil {
			return "", err
		}
	}
	var items []string
	if page < len(pages) {
		items = pages[page]
	}
	next := ""
	if page+1 < len(pages) {
		next = fmt.Sprintf(`,"nextCursor":"page-%d"`, page+1)
	}
	return fmt.Sprintf(`{%q:[%s]%s}`, key, strings.Join(items, ","), next), nil
}
