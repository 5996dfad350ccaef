package interop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol versions. The go-sdk v1.8.0 client asks for modernVersion unless
// told otherwise: it sends server/discover first and, if the server refuses,
// falls back to initialize with 2025-11-25.
const (
	modernVersion = "2026-07-28"
	v20251125     = "2025-11-25"
	v20250618     = "2025-06-18"
	v20250326     = "2025-03-26"
)

// legacyVersions are the versions negotiated with initialize.
var legacyVersions = []string{v20251125, v20250618, v20250326}

// caseTimeout bounds one client-server conversation.
const caseTimeout = 30 * time.Second

// transportKind is how the client reaches the fixture server.
type transportKind int

const (
	httpStateful transportKind = iota
	httpStateless
	stdio
)

func (k transportKind) String() string {
	switch k {
	case httpStateful:
		return "http-stateful"
	case httpStateless:
		return "http-stateless"
	case stdio:
		return "stdio"
	}
	return fmt.Sprintf("transportKind(%d)", int(k))
}

// isHTTP reports whether k is a Streamable HTTP transport.
func (k transportKind) isHTTP() bool { return k == httpStateful || k == httpStateless }

// sdkCase is one conversation between the go-sdk client and the fixture.
type sdkCase struct {
	name      string
	transport transportKind
	// serverVersions is the server's -versions flag. If empty, the server
	// supports its default set.
	serverVersions string
	// clientVersion is the version the client asks for. If empty, the SDK
	// asks for its latest, 2026-07-28.
	clientVersion string
	// want is the protocol version the session must end up with.
	want string
}

func sdkCases() []sdkCase {
	var cases []sdkCase
	for _, tr := range []transportKind{httpStateful, httpStateless, stdio} {
		for _, v := range legacyVersions {
			cases = append(cases,
				// server/discover is refused, so the client falls back to
				// initialize with 2025-11-25 and the server answers v.
				sdkCase{name: tr.String() + "/" + v + "/client-latest", transport: tr, serverVersions: v, want: v},
				// initialize with v, and nothing else first.
				sdkCase{name: tr.String() + "/" + v + "/client-" + v, transport: tr, serverVersions: v, clientVersion: v, want: v},
			)
		}
		cases = append(cases,
			sdkCase{name: tr.String() + "/" + modernVersion, transport: tr, serverVersions: modernVersion, want: modernVersion},
			sdkCase{name: tr.String() + "/server-default/client-latest", transport: tr, want: modernVersion},
			// A server that supports the version a client asks for must answer it.
			sdkCase{name: tr.String() + "/server-default/client-" + v20250618, transport: tr, clientVersion: v20250618, want: v20250618},
		)
	}
	return cases
}

// toolCall is one tools/call and what must come of it.
type toolCall struct {
	name string
	args map[string]any
	// wantCode, if non-zero, is the JSON-RPC error code the call must fail with.
	wantCode int64
	// wantText, if non-nil, is the exact text of every content block, all of
	// which must be text. If nil, at least one non-empty text block is required.
	wantText []string
	// wantStructured is the structuredContent the result must carry.
	wantStructured any
}

var toolCalls = []toolCall{
	{name: "echo", args: map[string]any{"text": "hi"}, wantText: []string{"hi"}},
	{name: "add", args: map[string]any{"a": 2, "b": 3}, wantStructured: map[string]any{"sum": 5.0}},
	{name: "test_simple_text"},
	// Unknown tool: a protocol error, Invalid params (tools.mdx, "Error Handling").
	{name: "no_such_tool", args: map[string]any{}, wantCode: jsonrpc.CodeInvalidParams},
}

// wantTools must all be in tools/list.
var wantTools = []string{"add", "echo", "test_simple_text"}

func TestGoSDKClient(t *testing.T) {
	for _, tt := range sdkCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
			defer cancel()

			conn := dial(ctx, t, tt.transport, tt.serverVersions, tt.clientVersion, nil)
			cs := conn.session
			if got := cs.InitializeResult().ProtocolVersion; got != tt.want {
				t.Errorf("negotiated protocol version = %q, want %q", got, tt.want)
			}
			// Legacy HTTP sessions, stateless ones included, carry a session
			// id; the modern era has none.
			sessionID := cs.ID()
			if wantID := tt.want != modernVersion; tt.transport.isHTTP() && (sessionID != "") != wantID {
				t.Errorf("Mcp-Session-Id = %q, want one: %t", sessionID, wantID)
			}

			checkListTools(ctx, t, cs)
			for _, call := range toolCalls {
				t.Run(call.name, func(t *testing.T) { checkToolCall(ctx, t, cs, call) })
			}

			if err := cs.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			switch {
			case tt.transport == stdio:
				if ps := conn.cmd.ProcessState; ps == nil || !ps.Success() {
					t.Errorf("stdio server after Close: %s, want exit code 0", exitSummary(ps))
				}
			case tt.transport.isHTTP():
				checkWire(t, conn.wire)
				checkTerminated(ctx, t, tt.transport, conn, sessionID)
			}
		})
	}
}

// sdkConn is a connected go-sdk client session and what it runs on.
type sdkConn struct {
	session  *mcp.ClientSession
	endpoint string       // HTTP only
	http     *http.Client // HTTP only
	wire     *wireLog     // HTTP only
	cmd      *exec.Cmd    // stdio only
}

// clientSetup customizes the go-sdk client that dial creates.
type clientSetup struct {
	// opts are the client's options; dial sets their Logger.
	opts mcp.ClientOptions
	// receiving is added with [mcp.Client.AddReceivingMiddleware].
	receiving []mcp.Middleware
}

// dial starts the fixture server and connects a go-sdk client to it, set up
// by setup if it is not nil. Every message and the client's own log are
// written to the test log if t fails.
func dial(ctx context.Context, t *testing.T, tr transportKind, serverVersions, clientVersion string, setup *clientSetup) *sdkConn {
	t.Helper()
	clientLog := new(ferrytest.Buffer)
	t.Cleanup(func() {
		if t.Failed() && clientLog.String() != "" {
			t.Logf("go-sdk client log:\n%s", clientLog)
		}
	})
	var opts mcp.ClientOptions
	if setup != nil {
		opts = setup.opts
	}
	opts.Logger = slog.New(slog.NewTextHandler(clientLog, &slog.HandlerOptions{Level: slog.LevelDebug}))
	client := mcp.NewClient(&mcp.Implementation{Name: "ferry-interop", Version: "v0.0.0"}, &opts)
	if setup != nil {
		client.AddReceivingMiddleware(setup.receiving...)
	}

	var conn sdkConn
	var transport mcp.Transport
	switch tr {
	case httpStateful, httpStateless:
		args := versionArgs(serverVersions)
		if tr == httpStateless {
			args = append(args, "-stateless")
		}
		conn.endpoint = startHTTP(t, args...)
		conn.http, conn.wire = newHTTPClient(t)
		transport = &mcp.StreamableClientTransport{Endpoint: conn.endpoint, HTTPClient: conn.http}
	case stdio:
		conn.cmd = stdioCommand(t.Context(), t, versionArgs(serverVersions)...)
		messages := new(ferrytest.Buffer)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("stdio messages:\n%s", messages)
			}
		})
		transport = &mcp.LoggingTransport{
			Transport: &mcp.CommandTransport{Command: conn.cmd, TerminateDuration: stopTimeout},
			Writer:    messages,
		}
	}

	var sessOpts *mcp.ClientSessionOptions
	if clientVersion != "" {
		sessOpts = &mcp.ClientSessionOptions{ProtocolVersion: clientVersion}
	}
	cs, err := client.Connect(ctx, transport, sessOpts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() }) // A no-op once the test has closed it.
	conn.session = cs
	return &conn
}

func checkListTools(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Errorf("ListTools: %v", err)
		return
	}
	tools := make(map[string]*mcp.Tool)
	var names []string
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
		names = append(names, tool.Name)
	}
	for _, name := range wantTools {
		if tools[name] == nil {
			t.Errorf("ListTools has no %q; got %q", name, names)
		}
	}
	if add := tools["add"]; add != nil && add.OutputSchema == nil {
		t.Errorf("tool add has no outputSchema")
	}
}

func checkToolCall(ctx context.Context, t *testing.T, cs *mcp.ClientSession, call toolCall) {
	t.Helper()
	params := &mcp.CallToolParams{Name: call.name}
	if call.args != nil {
		params.Arguments = call.args // A nil map would be sent as null.
	}
	res, err := cs.CallTool(ctx, params)
	if call.wantCode != 0 {
		var werr *jsonrpc.Error
		switch {
		case err == nil:
			t.Errorf("CallTool(%q) = %+v, want a protocol error with code %d", call.name, res, call.wantCode)
		case !errors.As(err, &werr):
			t.Errorf("CallTool(%q) error = %v (%T), want a JSON-RPC error with code %d", call.name, err, err, call.wantCode)
		case werr.Code != call.wantCode:
			t.Errorf("CallTool(%q) error code = %d (%v), want %d", call.name, werr.Code, werr, call.wantCode)
		}
		return
	}
	if err != nil {
		t.Fatalf("CallTool(%q): %v", call.name, err)
	}
	if res.IsError {
		t.Errorf("CallTool(%q) isError = true, content %s", call.name, texts(res.Content))
	}
	got := texts(res.Content)
	if call.wantText != nil {
		if diff := cmp.Diff(call.wantText, got); diff != "" {
			t.Errorf("CallTool(%q) content text mismatch (-want +got):\n%s", call.name, diff)
		}
	} else if !slices.ContainsFunc(got, func(s string) bool { return s != "" }) {
		t.Errorf("CallTool(%q) content = %q, want a non-empty text block", call.name, got)
	}
	if diff := cmp.Diff(call.wantStructured, res.StructuredContent); diff != "" {
		t.Errorf("CallTool(%q) structuredContent mismatch (-want +got):\n%s", call.name, diff)
	}
}

// texts returns the text of each content block, or a description of a block
// that is not text.
func texts(content []mcp.Content) []string {
	out := make([]string, 0, len(content))
	for _, c := range content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		} else {
			out = append(out, fmt.Sprintf("<%T>", c))
		}
	}
	return out
}

// checkWire checks rules of the Streamable HTTP transport over every exchange
// the client made: no 5xx, and 202 Accepted for each notification posted.
func checkWire(t *testing.T, w *wireLog) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, e := range w.exchanges {
		if e.status >= 500 {
			t.Errorf("exchange #%d %s: status %d, want < 500", i+1, e.method, e.status)
		}
		if e.method != http.MethodPost || e.err != nil {
			continue
		}
		msg, err := jsonrpc.DecodeMessage(e.reqBody)
		if err != nil {
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() && e.status != http.StatusAccepted {
			t.Errorf("exchange #%d POST %s notification: status %d, want %d", i+1, req.Method, e.status, http.StatusAccepted)
		}
	}
}

// checkTerminated checks what Close did to an HTTP session. A legacy session
// is ended with DELETE, which the server may refuse with 405; once it has
// accepted it, a stateful server must answer the old session id with 404. A
// session without an id sends no DELETE.
func checkTerminated(ctx context.Context, t *testing.T, tr transportKind, conn *sdkConn, sessionID string) {
	t.Helper()
	deletes := conn.wire.statuses(http.MethodDelete)
	if sessionID == "" {
		if len(deletes) != 0 {
			t.Errorf("DELETE sent without a session: statuses %v", deletes)
		}
		return
	}
	if len(deletes) != 1 {
		t.Errorf("DELETE statuses = %v, want exactly one", deletes)
		return
	}
	switch status := deletes[0]; {
	case status == http.StatusMethodNotAllowed:
		return
	case status < 200 || status > 299:
		t.Errorf("DELETE status = %d, want 2xx or 405", status)
		return
	}
	if tr != httpStateful {
		return
	}
	body := `{"jsonrpc":"2.0","id":99,"method":"tools/list","params":{}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, conn.endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set("Mcp-Protocol-Version", conn.session.InitializeResult().ProtocolVersion)
	resp, err := conn.http.Do(req)
	if err != nil {
		t.Fatalf("POST after DELETE: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body) // Recorded in the wire log.
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST with a deleted session id: status %d, want %d", resp.StatusCode, http.StatusNotFound)
	}
}
