package apptest

import (
	"bytes"
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/chromium"

	"github.com/chromedp/chromedp"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/cmd/ferry/internal/shop"
)

//go:embed testdata/host.html
var hostPage []byte

// uiCaps are the client capabilities of a client that shows apps.
var uiCaps = map[string]any{"extensions": map[string]any{
	"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{ferry.AppMIMEType}}}}

// mcpClient posts 2026-07-28 requests to the shop's MCP endpoint with an
// API key, declaring the apps extension.
type mcpClient struct {
	url, key string
}

// call returns the result of one request, or fails the test.
func (c *mcpClient) call(t *testing.T, method string, params map[string]any) json.RawMessage {
	t.Helper()
	result, rpcErr := c.try(t, method, params)
	if rpcErr != nil {
		t.Fatalf("%s: %s", method, rpcErr)
	}
	return result
}

// try returns the result or the error object of one request.
func (c *mcpClient) try(t *testing.T, method string, params map[string]any) (json.RawMessage, json.RawMessage) {
	t.Helper()
	p := map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": uiCaps}}
	for k, v := range params {
		p[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("X-API-Key", c.key)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	} else if uri, ok := params["uri"].(string); ok {
		req.Header.Set("Mcp-Name", uri)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		t.Fatalf("%s: %d %s", method, resp.StatusCode, data)
	}
	return msg.Result, msg.Error
}

// shopWithApp serves the demo shop and returns its MCP client and
// database.
func shopWithApp(t *testing.T) (*mcpClient, *sql.DB) {
	t.Helper()
	db, err := shop.Open(t.Context(), filepath.Join(t.TempDir(), "shop.db"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	const key = "k-apptest-0123456789"
	svc, err := shop.New(t.Context(), db, &shop.Options{Keys: map[string]*ferry.Principal{key: {Subject: "apptest"}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(svc.Handler())
	t.Cleanup(hs.Close)
	return &mcpClient{url: hs.URL + "/mcp", key: key}, db
}

// skus returns SKUs of products below their reorder level (n of them,
// emptiest first) and one with enough stock.
func skus(t *testing.T, db *sql.DB, n int) (low []string, ok string) {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), "SELECT sku FROM products WHERE stock < reorder_level AND stock > 0 ORDER BY stock, sku LIMIT ?", n)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		low = append(low, s)
	}
	if len(low) < n {
		t.Fatalf("the seed has %d products below their reorder level, want %d", len(low), n)
	}
	if err := db.QueryRowContext(t.Context(), "SELECT sku FROM products WHERE stock >= reorder_level ORDER BY sku LIMIT 1").Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return low, ok
}

// The restock report's app, found as a client that speaks apps finds it
// (tools/list, resources/read), runs in headless Chromium inside a host
// page that speaks the bridge: it draws a bar per low product from the
// tool's result, and its "Check again" button calls the tool through the
// host, whose fresh answer it draws.
func TestRestockAppInChromium(t *testing.T) {
	bin := chromium.Path(t)
	mcp, db := shopWithApp(t)

	var tools struct {
		Tools []struct {
			Name string
			Meta struct {
				UI struct{ ResourceURI string } `json:"ui"`
			} `json:"_meta"`
		}
	}
	_ = json.Unmarshal(mcp.call(t, "tools/list", nil), &tools)
	uri := ""
	for _, tl := range tools.Tools {
		if tl.Name == "restock_report" {
			uri = tl.Meta.UI.ResourceURI
		}
	}
	if uri != shop.RestockAppURI {
		t.Fatalf("restock_report links the app %q, want %q", uri, shop.RestockAppURI)
	}
	var read struct {
		Contents []struct{ MIMEType, Text string }
	}
	_ = json.Unmarshal(mcp.call(t, "resources/read", map[string]any{"uri": uri}), &read)
	if len(read.Contents) != 1 || read.Contents[0].MIMEType != ferry.AppMIMEType {
		t.Fatalf("resources/read %s = %+v", uri, read)
	}

	low, ok := skus(t, db, 2)
	args := map[string]any{"skus": []string{low[0], low[1], ok, "ZZZ-999"}}
	result := mcp.call(t, "tools/call", map[string]any{"name": "restock_report", "arguments": args})

	var (
		mu    sync.Mutex
		calls []json.RawMessage // the tools/call params the page sent through the host
	)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(hostPage)
	})
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, read.Contents[0].Text) })
	mux.HandleFunc("GET /toolcall", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"arguments": args, "result": result})
	})
	mux.HandleFunc("POST /call", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls = append(calls, body)
		mu.Unlock()
		var p map[string]any
		_ = json.Unmarshal(body, &p)
		res, rpcErr := mcp.try(t, "tools/call", p)
		if rpcErr != nil {
			_ = json.NewEncoder(w).Encode(map[string]any{"error": rpcErr})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"result": res})
	})
	host := httptest.NewServer(mux)
	defer host.Close()

	ctx := browse(t, bin)
	if err := chromedp.Run(ctx, chromedp.Navigate(host.URL), chromedp.Evaluate(`start()`, nil)); err != nil {
		t.Fatal(err)
	}
	first := waitView(t, ctx, func(v view) bool { return len(v.Rows) == 2 })
	if first.Rows[0].SKU != low[0] || first.Rows[1].SKU != low[1] || !strings.Contains(first.Rest, ok) || !strings.Contains(first.Rest, "ZZZ-999") ||
		!strings.Contains(first.Status, "2 products are below the reorder level") || first.Theme != "dark" {
		t.Errorf("the app shows %+v, want bars for %v, %s with enough stock, ZZZ-999 unknown, the dark theme", first, low, ok)
	}
	for _, r := range first.Rows {
		if r.Width == "" || r.Width == "0.0" || r.Reorder == "" || !strings.HasPrefix(r.Reorder, "+") {
			t.Errorf("row %+v: want a bar and the units to reorder", r)
		}
	}
	wantSent := []string{"ui/initialize", "ui/notifications/initialized", "ui/notifications/size-changed"}
	for _, m := range wantSent {
		if !strings.Contains(first.Sent, `"method":"`+m+`"`) {
			t.Errorf("the page did not send %s; it sent %s", m, first.Sent)
		}
	}

	// The stock of the first low product runs out; the page asks again.
	if _, err := db.ExecContext(t.Context(), "UPDATE products SET stock = 0 WHERE sku = ?", low[0]); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("view").contentDocument.getElementById("again").click()`, nil)); err != nil {
		t.Fatal(err)
	}
	second := waitView(t, ctx, func(v view) bool { return len(v.Rows) == 2 && v.Rows[0].Fill == "var(--low)" })
	if second.Rows[0].SKU != low[0] || second.Rows[0].Width != "1.0" {
		t.Errorf("after the stock ran out the app shows %+v, want %s first with an empty bar", second.Rows, low[0])
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || !strings.Contains(string(calls[0]), `"name":"restock_report"`) || !strings.Contains(string(calls[0]), low[1]) {
		t.Errorf("the page called through the host %s, want one restock_report with the tool's input", calls)
	}
}

// view is what the test reads of the page in the frame.
type view struct {
	Rows []struct {
		SKU, Width, Fill, Reorder string
	}
	Status, Rest, Theme, Sent string
}

// readView is the script that reads the page.
const readView = `(() => {
  const d = document.getElementById("view").contentDocument;
  if (!d || !d.getElementById("chart")) return {Rows: [], Status: "", Rest: "", Theme: "", Sent: JSON.stringify(window.fromView)};
  return {
    Rows: [...d.querySelectorAll(".row")].map((r) => ({SKU: r.dataset.sku, Width: r.querySelector("rect").dataset.width,
      Fill: r.querySelector("rect").getAttribute("fill"), Reorder: r.querySelector(".reorder").textContent})),
    Status: d.getElementById("status").textContent, Rest: d.getElementById("rest").textContent,
    Theme: d.documentElement.dataset.theme || "", Sent: JSON.stringify(window.fromView),
  };
})()`

// waitView reads the page until done says it shows what the test waits
// for, or fails after 30s.
func waitView(t *testing.T, ctx context.Context, done func(view) bool) view {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var v view
	for {
		if err := chromedp.Run(ctx, chromedp.Evaluate(readView, &v)); err != nil {
			t.Fatal(err)
		}
		if done(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page did not get there within 30s; it shows %+v", v)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// browse starts headless Chromium with a fresh profile and returns a
// context of its first tab; both end with the test.
func browse(t *testing.T, bin string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(chromium.Profile(t)),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	return ctx
}
