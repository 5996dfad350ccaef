package workbenchtest

import (
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// tabTo presses Tab until the focused element matches q, or fails the
// test after max presses: what the keyboard reaches, in the page's order.
func (b *browser) tabTo(q string, max int) {
	b.t.Helper()
	for range max {
		var there bool
		b.eval(`!!document.activeElement && document.activeElement.matches(`+js(q)+`)`, &there)
		if there {
			return
		}
		b.run(chromedp.KeyEvent(kb.Tab))
	}
	var at string
	b.eval(`document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : ""`, &at)
	b.t.Fatalf("%d presses of Tab did not reach %s; the focus is on %s", max, q, at)
}

// The workbench without a mouse: Tab reaches the credential, Enter
// connects, the search takes the typing, Tab and Enter open a tool, and
// Enter in its form sends it; the table that comes is the Go SDK's.
func TestWorkbenchByKeyboard(t *testing.T) {
	d := startDemo(t)
	sdk := connectSDK(t, d.url+"/mcp", sdkKey)
	b := browse(t)
	b.run(chromedp.Navigate(d.url+"/ui/"), chromedp.WaitVisible("#credential", chromedp.ByQuery))

	b.tabTo("#credential", 10)
	b.run(chromedp.KeyEvent(pageKey), chromedp.KeyEvent(kb.Enter))
	b.wait("Enter in the credential connects", `document.querySelector('#status[data-state="connected"]')`, nil)
	b.wait("the catalog is listed", `document.querySelector('#catalog li[data-name="list_products"]')`, nil)
	b.tabTo("#search", 10)
	b.run(chromedp.KeyEvent("list_products"))
	b.tabTo(`#catalog li[data-name="list_products"] button`, 10)
	b.run(chromedp.KeyEvent(kb.Enter))
	b.wait("Enter opens list_products", `document.querySelector('#detail[data-name="list_products"]') && document.querySelector('form#call-form [name="top"]')`, nil)
	// top holds its default; the caret goes to its end, and it is deleted.
	b.tabTo(`form#call-form [name="top"]`, 30)
	b.run(chromedp.KeyEvent(kb.End))
	for range 5 {
		b.run(chromedp.KeyEvent(kb.Backspace))
	}
	b.run(chromedp.KeyEvent("3"), chromedp.KeyEvent(kb.Enter))
	var tb table
	b.wait("Enter in the form sends it", readTable+` && `+readTable+`.Rows.length === 3 && `+readTable, &tb)
	b.shotAt("13-keyboard", "#result")
	if got, want := tb.column(t, "sku"), sdkSKUs(t, sdk, map[string]any{"top": 3}); !slices.Equal(got, want) {
		t.Errorf("the table's SKUs are %q; the Go SDK gets %q for top=3", got, want)
	}
}
