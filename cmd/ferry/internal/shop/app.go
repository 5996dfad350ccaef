package shop

import (
	_ "embed"

	"github.com/ferry-mcp/ferry"
)

// RestockAppURI is the ui:// URI of the restock report's app.
const RestockAppURI = "ui://shop/restock-report"

// restockHTML is the restock report's app: one page, its script and
// styles inline, that speaks the MCP Apps bridge (JSON-RPC over
// postMessage) with the client that shows it and draws the report's low
// products as bars.
//
//go:embed app/restock.html
var restockHTML []byte

// addApps serves the shop's app to clients that speak the apps
// extension; restock_report links to it.
func addApps(srv *ferry.Server) {
	border := true
	srv.AddApp(ferry.App{URI: RestockAppURI, Name: "restock report",
		Description: "The restock report as a chart: each low product's stock against its reorder level, and what to reorder.",
		HTML:        restockHTML, PrefersBorder: &border})
}
