package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// serve sends lines to a new server over stdio and returns its answers.
func serve(t *testing.T, lines ...string) string {
	t.Helper()
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	if err := newServer(slog.New(slog.DiscardHandler)).Run(t.Context(), &ferry.IOTransport{Reader: in, Writer: &out}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// The currency's default is in the schema: the model sees it in
// tools/list, and a call that leaves it out is answered in it.
func TestCurrencyDefaultIsPublishedAndApplied(t *testing.T) {
	list := serve(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`)
	if !strings.Contains(list, `"currency":{"type":"string","description":"Currency of the totals.","enum":["EUR","GBP","USD"],"default":"EUR"}`) {
		t.Errorf("tools/list does not publish the default: %s", list)
	}
	got := serve(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sales_report","arguments":{"from":"2026-03-01","to":"2026-03-07"},`+modernMeta+`}}`)
	if !strings.Contains(got, `7 days of sales over 0.00 EUR`) {
		t.Errorf("got %s", got)
	}
}
