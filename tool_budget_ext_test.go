package ferry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/schema"
)

// sentResult is a tools/call result as sent, and the size of its
// members as the budget counts them.
type sentResult struct {
	Content           []map[string]any
	StructuredContent json.RawMessage
	IsError           bool
	size              int
	text              string
}

// readResult reads the result of a JSON-RPC answer (or an SSE event
// holding one).
func readResult(t *testing.T, body string) sentResult {
	t.Helper()
	if i := strings.Index(body, "data: "); i >= 0 {
		body = strings.TrimSpace(body[i+len("data: "):])
	}
	var msg struct {
		Result struct {
			Content           json.RawMessage
			StructuredContent json.RawMessage
			IsError           bool
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil || msg.Error != nil {
		t.Fatalf("answer %.300s: %v %+v", body, err, msg.Error)
	}
	var r sentResult
	if err := json.Unmarshal(msg.Result.Content, &r.Content); err != nil {
		t.Fatal(err)
	}
	r.StructuredContent, r.IsError = msg.Result.StructuredContent, msg.Result.IsError
	r.size = len(`"content":`) + len(msg.Result.Content)
	if r.StructuredContent != nil {
		r.size += len(`,"structuredContent":`) + len(r.StructuredContent)
	}
	if r.IsError {
		r.size += len(`,"isError":true`)
	}
	for _, c := range r.Content {
		if s, ok := c["text"].(string); ok {
			r.text += s
		}
	}
	return r
}

// row is an item of a list-shaped typed result.
type row struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// rows is a list-shaped typed result.
type rows struct {
	Items   []row `json:"items"`
	HasMore bool  `json:"hasMore"`
}

// report is a structured result that is not a list.
type report struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// budgetServer serves tools whose results are far over the budget, and
// one well within it.
func budgetServer(t *testing.T, opts *ferry.ServerOptions) (*ferry.Server, *ferrytest.Buffer) {
	t.Helper()
	logs := new(ferrytest.Buffer)
	if opts == nil {
		opts = &ferry.ServerOptions{}
	}
	opts.Logger = logs.Logger()
	srv := ferry.NewServer("s", "1", opts)
	tenMB := strings.Repeat("é0123456789\"", 10<<20/14)
	srv.AddTool(ferry.Tool{Name: "dump", Description: "Returns 10 MB of text.", ReadOnly: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text(tenMB)), nil
		})
	srv.AddTool(ferry.Tool{Name: "file", Description: "Returns a file the user asked for.", ReadOnly: true, MaxResultBytes: -1},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text(strings.Repeat("x", 300_000))), nil
		})
	srv.AddTool(ferry.Tool{Name: "small", Description: "Answers briefly.", ReadOnly: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("brief")), nil
		})
	ferry.AddTool(srv, ferry.Tool{Name: "list_rows", Description: "Lists 5,000 rows.", ReadOnly: true},
		func(context.Context, struct{}) (rows, error) {
			out := rows{Items: make([]row, 5000)}
			for i := range out.Items {
				out.Items[i] = row{ID: i + 1, Name: "row number " + strconv.Itoa(i+1) + " with \"quotes\""}
			}
			return out, nil
		})
	ferry.AddTool(srv, ferry.Tool{Name: "write_report", Description: "Writes a long report.", ReadOnly: true},
		func(context.Context, struct{}) (report, error) {
			return report{Title: "Q3", Body: strings.Repeat("All went well. ", 20_000)}, nil
		})
	return srv, logs
}

// A result over the budget is cut to fit it, in both eras and on stdio:
// 10 MB of text ends with a notice saying how much was kept; a list of
// 5,000 rows keeps whole rows, valid against its output schema, with
// hasMore set; a structured result that is not a list is left out, the
// answer an error so that a client checking the schema takes it; a tool
// that opted out is sent whole; a small result is untouched. The call log
// records each cut.
func TestResultOverBudgetIsCut(t *testing.T) {
	srv, logs := budgetServer(t, nil)
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	outSchema, err := schema.For[rows](nil)
	if err != nil {
		t.Fatal(err)
	}
	check, err := schema.Compile(outSchema, schema.Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	results := func(t *testing.T, tool string) []sentResult {
		var out []sentResult
		for _, e := range eras {
			out = append(out, readResult(t, e.send(t, ts.URL, "tools/call", tool, `"name":"`+tool+`","arguments":{}`).body))
		}
		var stdio bytes.Buffer
		line := modernCall(tool, "{}") + "\n"
		if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(line), Writer: &stdio}); err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		return append(out, readResult(t, stdio.String()))
	}
	t.Run("text", func(t *testing.T) {
		for _, r := range results(t, "dump") {
			if r.size > ferry.DefaultMaxResultBytes {
				t.Errorf("%d bytes sent", r.size)
			}
			if !strings.Contains(r.text, " of 8,987,784 characters to fit the result budget of 100,000 bytes; ask for less") || r.IsError {
				t.Errorf("notice: %.200s", r.text[max(0, len(r.text)-300):])
			}
			if !utf8.ValidString(r.text) {
				t.Error("the text was cut inside a character")
			}
		}
	})
	t.Run("list", func(t *testing.T) {
		for _, r := range results(t, "list_rows") {
			if r.size > ferry.DefaultMaxResultBytes {
				t.Errorf("%d bytes sent", r.size)
			}
			if _, errs := check.Validate(r.StructuredContent); len(errs) > 0 {
				t.Errorf("structured content invalid: %v", errs)
			}
			var got rows
			dec := json.NewDecoder(bytes.NewReader(r.StructuredContent))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil || !got.HasMore || len(got.Items) < 100 || len(got.Items) >= 5000 {
				t.Fatalf("structured: %d items, hasMore %v, %v", len(got.Items), got.HasMore, err)
			}
			for i, it := range got.Items {
				if it.ID != i+1 || !strings.HasSuffix(it.Name, `with "quotes"`) {
					t.Fatalf("item %d is %+v", i, it)
				}
			}
			want := "[the list was cut at " + strconv.Itoa(len(got.Items)) + " of 5,000 items to fit the result budget of 100,000 bytes; hasMore is set"
			if !strings.Contains(r.text, want) || !strings.HasPrefix(r.text, string(r.StructuredContent)) || r.IsError {
				t.Errorf("text %.100s...%s; want the kept JSON and %q", r.text, r.text[max(0, len(r.text)-300):], want)
			}
		}
	})
	t.Run("structured", func(t *testing.T) {
		for _, r := range results(t, "write_report") {
			if r.size > ferry.DefaultMaxResultBytes || r.StructuredContent != nil || !r.IsError {
				t.Errorf("%d bytes, structured %.50s, isError %v", r.size, r.StructuredContent, r.IsError)
			}
			if !strings.Contains(r.text, "characters to fit the result budget of 100,000 bytes; its structured content was left out") {
				t.Errorf("notice: %s", r.text[max(0, len(r.text)-300):])
			}
		}
	})
	t.Run("opted out", func(t *testing.T) {
		for _, r := range results(t, "file") {
			if r.text != strings.Repeat("x", 300_000) {
				t.Errorf("cut: %d characters", len(r.text))
			}
		}
	})
	t.Run("small", func(t *testing.T) {
		for _, r := range results(t, "small") {
			if r.text != "brief" {
				t.Errorf("text %q", r.text)
			}
		}
	})
	records := logs.String()
	for _, want := range []string{`"tool":"dump","outcome":"ok"`, `"cut":{"limit":100000,"bytes":10485785,"client":false,"chars":`, `"of":5000}`, `"structuredDropped":true}`} {
		if !strings.Contains(records, want) {
			t.Errorf("the call log lacks %q", want)
		}
	}
	if line := logLine(records, `"tool":"small"`); line == "" || strings.Contains(line, `"cut"`) {
		t.Errorf("the call log of a small result: %q", line)
	}
}

// logLine is the first line of records holding s.
func logLine(records, s string) string {
	for line := range strings.Lines(records) {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// A client that states its own limit in _meta gets the smaller of it and
// the tool's, for a tool that opted out of the server's too; a limit that
// is not a whole number of at least 1024 bytes is refused as invalid params.
func TestClientStatedResultLimit(t *testing.T) {
	srv, _ := budgetServer(t, &ferry.ServerOptions{Limits: ferry.Limits{MaxResultBytes: 50_000}})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	call := func(tool, limit string) string {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"` +
			ferry.MetaMaxResultBytes + `":` + limit + `}`
		return send(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":{},`+meta+`}}`,
			"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool).body
	}
	for _, tt := range []struct {
		tool, limit string
		max         int
		want        string
	}{
		{"dump", "2000", 2000, "to fit the client's limit of 2,000 bytes"},
		{"dump", "900000", 50_000, "to fit the result budget of 50,000 bytes"},
		{"file", "20000", 20_000, "of 300,000 characters to fit the client's limit of 20,000 bytes"},
		{"list_rows", "10000", 10_000, "items to fit the client's limit of 10,000 bytes; hasMore is set"},
	} {
		r := readResult(t, call(tt.tool, tt.limit))
		if r.size > tt.max || !strings.Contains(r.text, tt.want) {
			t.Errorf("%s with %s: %d bytes, %s; want at most %d and %q", tt.tool, tt.limit, r.size, r.text[max(0, len(r.text)-200):], tt.max, tt.want)
		}
	}
	// Below MinClientResultBytes the cut notice alone would not fit.
	for _, bad := range []string{"0", "-5", "1", "1023", "1.5", `"2000"`, "1e3"} {
		got := call("small", bad)
		if !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, `must be a whole number of bytes, at least 1024`) {
			t.Errorf("limit %s: %s", bad, got)
		}
	}
}

// Text whose escapes make it larger on the wire than in memory (control
// characters are six bytes each in JSON) is cut to fit as sent.
func TestEscapedTextIsCutAsSent(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, Limits: ferry.Limits{MaxResultBytes: 10_000}})
	srv.AddTool(ferry.Tool{Name: "zeros", Description: "Returns zero bytes.", ReadOnly: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text(strings.Repeat("\x00", 9000))), nil
		})
	var out bytes.Buffer
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(modernCall("zeros", "{}") + "\n"), Writer: &out}); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	r := readResult(t, out.String())
	if r.size > 10_000 || !strings.Contains(r.text, " of 9,000 characters to fit the result budget of 10,000 bytes") {
		t.Errorf("%d bytes: %q", r.size, r.text[max(0, len(r.text)-200):])
	}
}
