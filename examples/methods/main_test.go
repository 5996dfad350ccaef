package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// call sends a modern tools/call of name with args to url and returns the
// answer's body.
func call(t *testing.T, url, name, args string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("%s: %d %s %v", name, resp.StatusCode, b, err)
	}
	return string(b)
}

// serveTest serves srv over HTTP for the length of t and returns its URL.
func serveTest(t *testing.T, srv *ferry.Server) string {
	t.Helper()
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// Handlers run concurrently: lending and searching from many clients at
// once must not race on the books (go test -race), and a book is lent once.
func TestToolsAreSafeForConcurrentCalls(t *testing.T) {
	lib := &Library{books: []Book{{ID: 1, Title: "SPQR: A History of Ancient Rome"}}}
	url := serveTest(t, newServer(lib, slog.New(slog.DiscardHandler)))
	var wg sync.WaitGroup
	var mu sync.Mutex // guards lent
	lent := 0
	for range 8 {
		wg.Go(func() {
			if !strings.Contains(call(t, url, "lend_book", `{"bookId":1,"reader":"Ada"}`), `"isError":true`) {
				mu.Lock()
				lent++
				mu.Unlock()
			}
		})
		wg.Go(func() { call(t, url, "find_books", `{"query":"rome"}`) })
	}
	wg.Wait()
	if lent != 1 {
		t.Errorf("the book was lent %d times, want once", lent)
	}
}

// find_books returns at most limit books, and 10 when the model leaves
// limit out, as its schema publishes.
func TestFindBooksAppliesItsLimit(t *testing.T) {
	lib := &Library{}
	for i := range 12 {
		lib.books = append(lib.books, Book{ID: i + 1, Title: "Rome, volume " + strconv.Itoa(i+1)})
	}
	url := serveTest(t, newServer(lib, slog.New(slog.DiscardHandler)))
	for _, tt := range []struct {
		args string
		want int
	}{
		{`{"query":"rome","limit":2}`, 2},
		{`{"query":"rome"}`, 10},
		{`{"query":"rome","limit":50}`, 12},
	} {
		if got := strings.Count(call(t, url, "find_books", tt.args), `\"id\"`); got != tt.want {
			t.Errorf("find_books %s: %d books, want %d", tt.args, got, tt.want)
		}
	}
}
