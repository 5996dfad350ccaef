package shop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/ferry-mcp/ferry"
)

// Inventory counts what the MCP server offers.
type Inventory struct {
	Tools, Prompts, Resources, Templates int
	// Groups are the MCP server's groups, each served at /mcp/{group}.
	Groups []ferry.GroupInfo
}

// Inventory asks the MCP server, in process and through the protocol, how
// many tools, prompts, resources and resource templates it lists, so the
// numbers printed at start are the ones a client sees.
func (s *Service) Inventory(ctx context.Context) (Inventory, error) {
	h := ferry.NewHTTPHandler(s.MCP, nil)
	var inv Inventory
	for _, l := range []struct {
		method, member string
		n              *int
	}{
		{"tools/list", "tools", &inv.Tools},
		{"prompts/list", "prompts", &inv.Prompts},
		{"resources/list", "resources", &inv.Resources},
		{"resources/templates/list", "resourceTemplates", &inv.Templates},
	} {
		n, err := countList(ctx, h, l.method, l.member)
		if err != nil {
			return inv, err
		}
		*l.n = n
	}
	inv.Groups = s.MCP.Groups()
	return inv, nil
}

// countList counts the entries of a list method, following its cursors.
func countList(ctx context.Context, h http.Handler, method, member string) (int, error) {
	n := 0
	var cursor *string
	for range 100 { // a bound, never reached: the lists are short
		params := map[string]any{"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		if err != nil {
			return 0, err
		}
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var resp struct {
			Result map[string]json.RawMessage `json:"result"`
			Error  *struct{ Message string }  `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.Error != nil || resp.Result == nil {
			return 0, fmt.Errorf("shop: %s answered %d %q", method, w.Code, w.Body.String())
		}
		var entries []json.RawMessage
		if err := json.Unmarshal(resp.Result[member], &entries); err != nil {
			return 0, fmt.Errorf("shop: %s: %w", method, err)
		}
		n += len(entries)
		cursor = nil
		if raw, ok := resp.Result["nextCursor"]; ok {
			var c string
			if json.Unmarshal(raw, &c) == nil && c != "" {
				cursor = &c
			}
		}
		if cursor == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("shop: %s: too many pages", method)
}
