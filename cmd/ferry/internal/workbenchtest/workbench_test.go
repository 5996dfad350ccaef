package workbenchtest

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo's workbench in headless Chromium, step by step, each checked
// against what a client of the official Go SDK gets from the same server,
// with a screenshot of each step (see artifacts): a wrong key is said to
// be wrong; the catalog lists what the server lists and filters as one
// types; every control has an accessible name; list_products' result is
// a table that pages; the server's refusals show beside the fields they
// name; the trace shows the Go SDK's calls, which the page did not make;
// and a prompt, a resource and a template read as the Go SDK reads them.
func TestWorkbenchInChromium(t *testing.T) {
	d := startDemo(t)
	sdk := connectSDK(t, d.url+"/mcp", sdkKey)
	b := browse(t)

	steps := []struct {
		name string
		run  func(t *testing.T, d *demo, sdk *mcp.ClientSession, b *browser)
	}{
		{"catalog lists what the server lists, search filters it", stepCatalog},
		{"a list result is a table that pages", stepTable},
		{"refusals show beside their fields", stepRefusals},
		{"the trace shows another client's calls", stepTrace},
		{"a prompt, a resource and a template read as the Go SDK reads them", stepPromptAndResources},
	}
	for _, s := range steps {
		if !t.Run(s.name, func(t *testing.T) {
			b.t = t
			s.run(t, d, sdk, b)
		}) {
			t.FailNow() // each step starts where the one before left the page
		}
	}
}

// connectPage opens the workbench at url, types key and connects.
func connectPage(b *browser, url, key string) {
	b.t.Helper()
	b.run(chromedp.Navigate(url),
		chromedp.WaitVisible("#credential", chromedp.ByQuery),
		chromedp.SendKeys("#credential", key, chromedp.ByQuery),
		chromedp.Click("#connect", chromedp.ByQuery))
	b.wait("the page connects", `document.querySelector('#status[data-state="connected"]')`, nil)
}

// readCatalog is the script that reads the catalog: the names of its
// items by kind, all of them or only the ones not hidden.
const readCatalog = `((visibleOnly) => {
  const out = {tool: [], prompt: [], resource: [], template: []};
  for (const li of document.querySelectorAll("#catalog li[data-kind][data-name]")) {
    if (visibleOnly && li.hidden) continue;
    (out[li.dataset.kind] ||= []).push(li.dataset.name);
  }
  return out;
})`

// pageCatalog is what readCatalog returns.
type pageCatalog struct {
	Tool, Prompt, Resource, Template []string
}

func stepCatalog(t *testing.T, d *demo, sdk *mcp.ClientSession, b *browser) {
	want := listAll(t.Context(), t, sdk)
	if len(want.Tools) != 14 {
		t.Errorf("the demo lists %d tools to the Go SDK, want 14: %v", len(want.Tools), want.Tools)
	}
	// A wrong key first: the page says so.
	b.run(chromedp.Navigate(d.url+"/ui/"),
		chromedp.WaitVisible("#credential", chromedp.ByQuery),
		chromedp.SendKeys("#credential", "k-not-a-key-0123456789", chromedp.ByQuery),
		chromedp.Click("#connect", chromedp.ByQuery))
	var status string
	b.wait("the page says the key is wrong", `document.querySelector('#status[data-state="error"]') && document.getElementById("status").textContent.trim()`, &status)
	b.shot("00-wrong-key")
	if refused := d.rec.find(func(e exchange) bool { return fromBrowser(e) && e.Path == "/mcp" && e.Status == 401 }); len(refused) == 0 {
		t.Errorf("the page shows %q, but the server refused none of its requests", status)
	}

	connectPage(b, d.url+"/ui/", pageKey)
	var got pageCatalog
	b.wait("the catalog lists the server's tools",
		`document.querySelectorAll("#catalog li[data-kind=tool]").length === `+jsInt(len(want.Tools))+` && `+readCatalog+`(false)`, &got)
	check := func(kind string, got, want []string) {
		got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			t.Errorf("the catalog's %ss are %q; the Go SDK lists %q", kind, got, want)
		}
	}
	check("tool", got.Tool, want.Tools)
	check("prompt", got.Prompt, want.Prompts)
	check("resource", got.Resource, want.Resources)
	check("template", got.Template, want.Templates)
	b.shot("01-catalog")
	if unnamed := b.unnamedControls(); len(unnamed) > 0 {
		t.Errorf("controls without an accessible name: %q", unnamed)
	}

	// Searching hides what does not match: an item whose name holds the
	// words stays, one whose name, title and description all lack them
	// goes (the page may match descriptions or not).
	const term = "restock"
	texts := map[string]string{} // tool name -> name, title and description, lower case
	for tool, err := range sdk.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		texts[tool.Name] = strings.ToLower(tool.Name + " " + tool.Title + " " + tool.Description)
	}
	var show, hide []string
	for name, text := range texts {
		if strings.Contains(name, term) {
			show = append(show, name)
		} else if !strings.Contains(text, term) {
			hide = append(hide, name)
		}
	}
	b.run(chromedp.SendKeys("#search", term, chromedp.ByQuery))
	// Polled until right, as the page may wait for the typing to pause.
	shows := func(names []string) string {
		q, _ := json.Marshal(names)
		return `(` + readCatalog + `(true).tool.filter((n) => ` + string(q) + `.includes(n)).length)`
	}
	var shown pageCatalog
	if !b.poll(shows(show)+` === `+jsInt(len(show))+` && `+shows(hide)+` === 0 && `+readCatalog+`(true).prompt.join() === "restock_plan"`, nil) {
		b.eval(readCatalog+`(true)`, &shown)
		t.Errorf("searching %q shows %+v, want the tools %q among them, none of %q, and the prompt restock_plan alone", term, shown, show, hide)
	}
	b.shot("02-search")
	clearInput(b, "#search")
	b.wait("clearing the search shows every tool again",
		`document.querySelectorAll("#catalog li[data-kind=tool]:not([hidden])").length === `+jsInt(len(want.Tools)), nil)
}

// table is what readTable returns: the result table's column names, its
// rows' cells and the paging line.
type table struct {
	Columns []string
	Rows    [][]string
	Info    string
}

// readTable is the script that reads the result table, or null while
// there is none.
const readTable = `(() => {
  const r = document.querySelector('#result[data-view="table"] table#result-table');
  if (!r) return null;
  return {
    Columns: [...r.querySelectorAll("thead th")].map((th) => th.textContent.trim()),
    Rows: [...r.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((td) => td.textContent.trim())),
    Info: (document.getElementById("page-info") || {textContent: ""}).textContent,
  };
})()`

// column returns the cells of the column named name.
func (tb table) column(t *testing.T, name string) []string {
	t.Helper()
	i := slices.Index(tb.Columns, name)
	if i < 0 {
		t.Fatalf("the result table has no column %q: %q", name, tb.Columns)
	}
	out := make([]string, len(tb.Rows))
	for j, row := range tb.Rows {
		if i < len(row) {
			out[j] = row[i]
		}
	}
	return out
}

// sdkSKUs returns the SKUs of list_products' page, called through the Go
// SDK with args.
func sdkSKUs(t *testing.T, sdk *mcp.ClientSession, args map[string]any) []string {
	t.Helper()
	res, err := sdk.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_products", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("the Go SDK's list_products %v: %v %+v", args, err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var page struct {
		Data []struct{ SKU string }
	}
	if err := json.Unmarshal(raw, &page); err != nil || len(page.Data) == 0 {
		t.Fatalf("the Go SDK's list_products %v: no rows in %s (%v)", args, raw, err)
	}
	skus := make([]string, len(page.Data))
	for i, p := range page.Data {
		skus[i] = p.SKU
	}
	return skus
}

// setField replaces the value of the form's control for path.
func setField(b *browser, path, value string) {
	b.t.Helper()
	q := `form#call-form [name=` + js(path) + `]`
	b.run(chromedp.WaitVisible(q, chromedp.ByQuery))
	clearInput(b, q)
	if value != "" {
		b.run(chromedp.SendKeys(q, value, chromedp.ByQuery))
	}
}

// clearInput empties the input q selects as a user does who selects its
// text and deletes it: the page sees an input event.
func clearInput(b *browser, q string) {
	b.t.Helper()
	b.eval(`(() => { const el = document.querySelector(`+js(q)+`); el.focus(); el.value = "";
	  el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
}

// openTool opens a tool of the catalog and waits for its form.
func openTool(b *browser, name string) {
	b.t.Helper()
	openEntry(b, "tool", name)
}

// openEntry opens an entry of the catalog and waits for its form.
func openEntry(b *browser, kind, name string) {
	b.t.Helper()
	b.run(chromedp.Click(`#catalog li`+sel("data-kind", kind)+sel("data-name", name)+` button`, chromedp.ByQuery))
	b.wait("the detail of "+name+" opens", `document.querySelector('#detail`+sel("data-kind", kind)+sel("data-name", name)+`') && document.querySelector("form#call-form")`, nil)
}

// rawRequest is the script that reads the arguments of the request the
// page showed last.
const rawRequest = `(() => {
  const pre = document.querySelector("details#raw-request pre");
  try { return JSON.parse(pre.textContent).params.arguments || {}; } catch (e) { return null; }
})()`

func stepTable(t *testing.T, d *demo, sdk *mcp.ClientSession, b *browser) {
	openTool(b, "list_products")
	// Its groups, which tools/list does not carry, come from catalog.json.
	groups := d.groups["list_products"]
	if len(groups) == 0 {
		t.Fatal("the demo's list_products is in no group")
	}
	for _, g := range groups {
		b.wait("list_products' detail names its group "+g,
			`document.querySelector("#detail .groups").textContent.includes(`+strconv.Quote(g)+`)`, nil)
	}
	if unnamed := b.unnamedControls(); len(unnamed) > 0 {
		t.Errorf("with list_products' form, controls without an accessible name: %q", unnamed)
	}
	setField(b, "top", "5")
	b.run(chromedp.Click("#send", chromedp.ByQuery))
	var first table
	b.wait("list_products' result shows as a table of 5 rows", readTable+` && `+readTable+`.Rows.length === 5 && `+readTable, &first)
	want := sdkSKUs(t, sdk, map[string]any{"top": 5})
	if got := first.column(t, "sku"); !slices.Equal(got, want) {
		t.Errorf("the table's SKUs are %q; the Go SDK gets %q for top=5", got, want)
	}
	if !regexp.MustCompile(`\b1\s*[–-]\s*5\b`).MatchString(first.Info) {
		t.Errorf("the paging line says %q, want rows 1–5", first.Info)
	}
	// The README's screenshot: the table, and the call in the trace.
	b.wait("the trace shows the page's call", `document.querySelector('#trace tbody tr[data-name="list_products"]')`, nil)
	b.shotAt("03-table", "#result")

	b.run(chromedp.Click("#page-next", chromedp.ByQuery))
	var next table
	b.wait("page-next shows the next 5 rows", readTable+` && `+readTable+`.Rows.length === 5 && `+
		readTable+`.Info !== `+js(first.Info)+` && `+readTable, &next)
	want = sdkSKUs(t, sdk, map[string]any{"top": 5, "skip": 5})
	if got := next.column(t, "sku"); !slices.Equal(got, want) {
		t.Errorf("after page-next the table's SKUs are %q; the Go SDK gets %q for top=5, skip=5", got, want)
	}
	if !regexp.MustCompile(`\b6\s*[–-]\s*10\b`).MatchString(next.Info) {
		t.Errorf("after page-next the paging line says %q, want rows 6–10", next.Info)
	}
	var args map[string]any
	b.eval(rawRequest, &args)
	if args["top"] != 5.0 || args["skip"] != 5.0 {
		t.Errorf("page-next sent the arguments %v, want top 5 and skip 5", args)
	}
	b.shotAt("04-page-next", "#result")

	b.run(chromedp.Click("#page-prev", chromedp.ByQuery))
	var prev table
	b.wait("page-prev goes back", readTable+` && `+readTable+`.Info === `+js(first.Info)+` && `+readTable, &prev)
	if got, want := prev.column(t, "sku"), first.column(t, "sku"); !slices.Equal(got, want) {
		t.Errorf("after page-prev the table's SKUs are %q, want the first page's %q", got, want)
	}
	b.shotAt("05-page-prev", "#result")
}

// fieldError is the script that reads the refusal shown beside a field.
func fieldError(path string) string {
	return `((document.querySelector('.field-error` + sel("data-error-for", path) + `') || {textContent: ""}).textContent.trim())`
}

// sdkRefusal returns the text of list_products' refusal of args through
// the Go SDK.
func sdkRefusal(t *testing.T, sdk *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	res, err := sdk.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_products", Arguments: args})
	if err != nil || !res.IsError || len(res.Content) == 0 {
		t.Fatalf("the Go SDK's list_products %v: %v %+v, want a refusal", args, err, res)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("the Go SDK's list_products %v: content %T, want text", args, res.Content[0])
	}
	return text.Text
}

// sentenceFor returns the sentence of a refusal text that names path:
// "invalid arguments:\n- PATH: sentence" lines, or "code: PATH: sentence".
func sentenceFor(t *testing.T, text, path string) string {
	t.Helper()
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimPrefix(line, "- ")
		if _, rest, ok := strings.Cut(line, path+": "); ok {
			return rest
		}
	}
	t.Fatalf("the refusal %q names no field %s", text, path)
	return ""
}

func stepRefusals(t *testing.T, _ *demo, sdk *mcp.ClientSession, b *browser) {
	// A filter the tool refuses: its sentence beside the filter.
	const badFilter = "price >>> 3"
	setField(b, "top", "5")
	setField(b, "skip", "")
	setField(b, "filter", badFilter)
	b.run(chromedp.Click("#send", chromedp.ByQuery))
	want := sentenceFor(t, sdkRefusal(t, sdk, map[string]any{"top": 5, "filter": badFilter}), "filter")
	var got string
	b.wait("the filter's refusal shows beside it", fieldError("filter"), &got)
	if !strings.Contains(got, want) {
		t.Errorf("beside the filter the page shows %q, want the server's sentence %q", got, want)
	}
	b.shotAt("06-refusal-filter", `.field[data-field="filter"]`)

	// A value the schema refuses: its sentence beside top, none beside
	// the filter any more.
	setField(b, "filter", "")
	setField(b, "top", "0")
	b.run(chromedp.Click("#send", chromedp.ByQuery))
	want = sentenceFor(t, sdkRefusal(t, sdk, map[string]any{"top": 0}), "top")
	b.wait("top's refusal shows beside it", fieldError("top"), &got)
	if !strings.Contains(got, want) {
		t.Errorf("beside top the page shows %q, want the server's sentence %q", got, want)
	}
	b.eval(fieldError("filter"), &got)
	if got != "" {
		t.Errorf("after a call that did not refuse the filter, the page still shows %q beside it", got)
	}
	b.shotAt("07-refusal-top", `.field[data-field="top"]`)
}

// traceRow is one row of the page's trace.
type traceRow struct {
	Seq, Name, Caller, Client, Outcome string
}

// readTrace is the script that reads the trace's rows, newest first.
const readTrace = `[...document.querySelectorAll("#trace tbody tr[data-seq]")].map((tr) => ({
  Seq: tr.dataset.seq, Name: tr.dataset.name, Caller: tr.dataset.caller, Client: tr.dataset.client, Outcome: tr.dataset.outcome}))`

func stepTrace(t *testing.T, d *demo, sdk *mcp.ClientSession, b *browser) {
	pageCall := func(e exchange) bool { return fromBrowser(e) && e.Path == "/mcp" && e.MCPMethod == "tools/call" }
	before := len(d.rec.find(pageCall))

	// The Go SDK's client calls two tools meanwhile: one answers, one
	// refuses.
	res, err := sdk.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_product", Arguments: map[string]any{"id": 1}})
	if err != nil || res.IsError {
		t.Fatalf("the Go SDK's get_product: %v %+v", err, res)
	}
	res, err = sdk.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_customer", Arguments: map[string]any{"id": 999999}})
	if err != nil || !res.IsError {
		t.Fatalf("the Go SDK's get_customer of an unknown id: %v %+v, want a refusal", err, res)
	}
	var rows []traceRow
	b.wait("the trace shows the Go SDK's calls", `(() => { const rows = `+readTrace+`;
	  return rows.some((r) => r.Caller === `+js(sdkCaller)+` && r.Name === "get_customer") ? rows : null; })()`, &rows)
	b.shot("08-trace")

	find := func(name string) *traceRow {
		for i := range rows {
			if rows[i].Name == name && rows[i].Caller == sdkCaller {
				return &rows[i]
			}
		}
		return nil
	}
	for _, w := range []traceRow{
		{Name: "get_product", Caller: sdkCaller, Client: sdkClient, Outcome: "ok"},
		{Name: "get_customer", Caller: sdkCaller, Client: sdkClient, Outcome: "refused"},
	} {
		got := find(w.Name)
		if got == nil {
			t.Errorf("the trace has no row of the Go SDK's %s: %+v", w.Name, rows)
			continue
		}
		if got.Client != w.Client || got.Outcome != w.Outcome {
			t.Errorf("the trace's row of the Go SDK's %s is %+v, want client %s, outcome %s", w.Name, *got, w.Client, w.Outcome)
		}
	}
	if p, c := find("get_product"), find("get_customer"); p != nil && c != nil && slices.Index(rows, *c) > slices.Index(rows, *p) {
		t.Errorf("the trace shows get_customer below get_product: want the newest first, %+v", rows)
	}
	// The page's own calls are there too, as its caller's.
	own := false
	for _, r := range rows {
		own = own || (r.Name == "list_products" && r.Caller == pageCaller && r.Client == pageClient)
	}
	if !own {
		t.Errorf("the trace has no row of the page's own list_products as %s: %+v", pageCaller, rows)
	}
	if after := len(d.rec.find(pageCall)); after != before {
		t.Errorf("the page made %d tools/call requests while the Go SDK called; it should only have read the trace", after-before)
	}
	traced := d.rec.find(func(e exchange) bool {
		return fromBrowser(e) && e.Method == "GET" && e.Path == "/ui/trace" && e.Status == 200
	})
	if len(traced) == 0 {
		t.Error("the page never read /ui/trace successfully")
	}
}

// pageClient is the name the page gives itself (the contract's
// clientInfo).
const pageClient = "ferry-workbench"

// jsInt is n as a JavaScript number literal.
func jsInt(n int) string {
	q, _ := json.Marshal(n)
	return string(q)
}

// rawResult is the script that reads the result of the response the
// page showed last, or null.
const rawResult = `(() => {
  const pre = document.querySelector("details#raw-response pre");
  try { return JSON.parse(pre.textContent).result || null; } catch (e) { return null; }
})()`

// spaces collapses runs of white space, as a page's text differs from
// the server's in line breaks.
func spaces(s string) string { return strings.Join(strings.Fields(s), " ") }

func stepPromptAndResources(t *testing.T, _ *demo, sdk *mcp.ClientSession, b *browser) {
	ctx := t.Context()
	// A prompt with an argument from an enum.
	prompt, err := sdk.GetPrompt(ctx, &mcp.GetPromptParams{Name: "restock_plan", Arguments: map[string]string{"category": "tea"}})
	if err != nil || len(prompt.Messages) == 0 {
		t.Fatalf("the Go SDK's prompts/get restock_plan: %v %+v", err, prompt)
	}
	want, ok := prompt.Messages[0].Content.(*mcp.TextContent)
	if !ok {
		t.Fatalf("restock_plan's first message is %T, want text", prompt.Messages[0].Content)
	}
	openEntry(b, "prompt", "restock_plan")
	b.eval(`(() => { const el = document.querySelector('form#call-form [name="category"]'); el.value = "tea";
	  el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
	b.run(chromedp.Click("#send", chromedp.ByQuery))
	var shown string
	b.wait("the prompt's messages show", rawResult+` && `+rawResult+`.messages && document.getElementById("result").textContent`, &shown)
	if !strings.Contains(spaces(shown), spaces(want.Text)) {
		t.Errorf("the prompt shows %q; the Go SDK gets the message %q", shown, want.Text)
	}
	b.shotAt("09-prompt", "#result")

	// A resource, and a template with its variable filled.
	var uri string
	for r, err := range sdk.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Name == "policies" {
			uri = r.URI
		}
	}
	for _, c := range []struct {
		kind, name, uri string
		vars            map[string]string
	}{
		{"resource", "policies", uri, nil},
		{"template", "order", "shop://orders/1", map[string]string{"id": "1"}},
	} {
		read, err := sdk.ReadResource(ctx, &mcp.ReadResourceParams{URI: c.uri})
		if err != nil || len(read.Contents) == 0 {
			t.Fatalf("the Go SDK's resources/read %s: %v %+v", c.uri, err, read)
		}
		openEntry(b, c.kind, c.name)
		for k, v := range c.vars {
			setField(b, k, v)
		}
		b.run(chromedp.Click("#send", chromedp.ByQuery))
		var got struct {
			Contents []struct{ URI, Text string }
		}
		b.wait("the "+c.kind+" "+c.name+" reads", rawResult+` && `+rawResult+`.contents && `+rawResult+`.contents[0].uri === `+js(c.uri)+` && `+rawResult, &got)
		if len(got.Contents) != len(read.Contents) || got.Contents[0].Text != read.Contents[0].Text {
			t.Errorf("the page read %s as %+v; the Go SDK reads %+v", c.uri, got.Contents, read.Contents[0])
		}
		b.eval(`document.getElementById("result").textContent`, &shown)
		if c.kind == "resource" && !strings.Contains(spaces(shown), spaces(read.Contents[0].Text)) {
			t.Errorf("the page shows %s as %q, want its text %q", c.uri, shown, read.Contents[0].Text)
		}
	}
	b.shotAt("10-template", "#result")
}
