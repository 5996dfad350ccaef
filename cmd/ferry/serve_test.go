package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/ferrytest"

	"github.com/google/go-cmp/cmp"
)

// Read-only by default: the write tools are not listed and cannot be
// called, and the read tools serve the rows, on every engine.
func TestServeReadOnlyByDefault(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			d.shop(t)
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
			if diff := cmp.Diff(readTools, s.tools(t).names()); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			r := s.post(t, "tools/call", map[string]any{"name": "create_product", "arguments": map[string]any{"sku": "X", "name": "X", "price": 1}})
			if r.Error == nil {
				t.Errorf("create_product on a read-only server: %s; want an unknown-tool error", r.Result)
			}
			rows := records(t, s.call(t, "list_products", map[string]any{"orderBy": "price desc"}))
			if len(rows) != 3 || rows[0]["sku"] != "TEE-2" {
				t.Errorf("list_products = %v; want 3 rows, TEE-2 first", rows)
			}
			got := s.call(t, "get_product", map[string]any{"sku": "MUG-1"})
			if got.IsError || got.Structured["data"].(map[string]any)["name"] != "Blue mug" {
				t.Errorf("get_product by sku: %s", got.text())
			}
			for _, want := range []string{"serving 3 tables of", "customers, products, visits", "5 tools, read-only", "auth: none (loopback only)"} {
				if !contains(s.stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, s.stderr.String())
				}
			}
			var n int
			if err := d.db.QueryRow("SELECT count(*) FROM products").Scan(&n); err != nil || n != 3 {
				t.Errorf("products after the refused create: %d, %v", n, err)
			}
		})
	}
}

// With -writes, a created record can be read back, by key and by natural
// key, and changed and deleted.
func TestServeWrites(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			d.shop(t)
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-writes"})
			want := []string{"create_customer", "create_product", "delete_customer", "delete_product", "get_customer", "get_product",
				"list_customers", "list_products", "list_visits", "update_customer", "update_product"}
			if diff := cmp.Diff(want, s.tools(t).names()); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			created := s.call(t, "create_product", map[string]any{"sku": "CAP-9", "name": "Cap", "price": "12.50"})
			if created.IsError {
				t.Fatalf("create_product: %s", created.text())
			}
			id := created.Structured["data"].(map[string]any)["id"]
			got := s.call(t, "get_product", map[string]any{"id": id})
			data, _ := got.Structured["data"].(map[string]any)
			if got.IsError || data["sku"] != "CAP-9" || data["name"] != "Cap" {
				t.Errorf("get_product %v after create: %s", id, got.text())
			}
			if u := s.call(t, "update_product", map[string]any{"sku": "CAP-9", "name": "Flat cap"}); u.IsError {
				t.Errorf("update_product: %s", u.text())
			}
			var name string
			if err := d.db.QueryRow("SELECT name FROM products WHERE sku = 'CAP-9'").Scan(&name); err != nil || name != "Flat cap" {
				t.Errorf("the database after update: %q, %v", name, err)
			}
			if del := s.call(t, "delete_product", map[string]any{"id": id}); del.IsError {
				t.Errorf("delete_product: %s", del.text())
			}
			if got := s.call(t, "get_product", map[string]any{"id": id}); !got.IsError || !contains(got.text(), "not-found") {
				t.Errorf("get_product after delete: %s; want not-found", got.text())
			}
			if !contains(s.stderr.String(), "11 tools, with writes") {
				t.Errorf("stderr does not say writes are on:\n%s", s.stderr.String())
			}
		})
	}
}

func TestServeTablesFlags(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			d.shop(t)
			only := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-tables", "products, visits"})
			if diff := cmp.Diff([]string{"get_product", "list_products", "list_visits"}, only.tools(t).names()); diff != "" {
				t.Errorf("-tables products,visits (-want +got):\n%s", diff)
			}
			minus := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-tables", "products,customers", "-exclude-tables", "customers"})
			if diff := cmp.Diff([]string{"get_product", "list_products"}, minus.tools(t).names()); diff != "" {
				t.Errorf("-tables products,customers -exclude-tables customers (-want +got):\n%s", diff)
			}
			code, stderr := failServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-tables", "products,prodcuts"})
			if code != exitFailed || !contains(stderr, `"prodcuts"`) || !contains(stderr, "check the names given to -tables") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("-tables with a missing table: exit %d, %q; want 1 and one line naming it", code, stderr)
			}
			code, stderr = failServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-exclude-tables", "products,customers,visits"})
			if code != exitFailed || !contains(stderr, "no tables to serve") {
				t.Errorf("every table excluded: exit %d, %q; want 1, no tables to serve", code, stderr)
			}
		})
	}
}

const shopConfig = `# what introspection cannot tell
tables:
  products:
    description: Products the shop sells; price is in euros.
    natural_key: name
    hidden: [cost_price]
    filter: [name, price]
    sort: [price]
    search: [name, description]
    fields:
      price: The unit price, tax included.
  customers:
    description: People who bought something.
`

// The config file hides a column (from the schema, the results and the
// filters), describes a table and a field, limits filtering and sorting,
// and gives search over the fields it names.
func TestServeConfig(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			d.shop(t)
			conf := filepath.Join(t.TempDir(), "serve.yaml")
			if err := os.WriteFile(conf, []byte(shopConfig), 0o600); err != nil {
				t.Fatal(err)
			}
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-config", conf})
			l := s.tools(t)
			for _, tool := range l.Tools {
				if contains(string(tool.InputSchema), "cost_price") || contains(tool.Description, "cost_price") {
					t.Errorf("%s mentions the hidden column: %s %s", tool.Name, tool.Description, tool.InputSchema)
				}
				if strings.HasSuffix(tool.Name, "_product") || strings.HasSuffix(tool.Name, "_products") {
					if !contains(tool.Description, "Products the shop sells") {
						t.Errorf("%s lacks the configured description: %s", tool.Name, tool.Description)
					}
				}
				if tool.Name == "list_products" && !contains(string(tool.InputSchema), `"search"`) {
					t.Errorf("list_products has no search argument: %s", tool.InputSchema)
				}
			}
			got := s.call(t, "get_product", map[string]any{"name": "Blue mug"})
			if got.IsError || contains(got.text(), "cost_price") || contains(got.text(), "2.1") || !contains(got.text(), "MUG-1") {
				t.Errorf("get_product shows the hidden column: %s", got.text())
			}
			rows := records(t, s.call(t, "list_products", map[string]any{"search": "MUG", "orderBy": "price desc"}))
			if len(rows) != 2 || rows[0]["sku"] != "MUG-3" {
				t.Errorf("search MUG = %v; want MUG-3 then MUG-1", rows)
			}
			// LIKE's wildcards in the text are characters, not patterns.
			if rows := records(t, s.call(t, "list_products", map[string]any{"search": "mu_"})); len(rows) != 0 {
				t.Errorf("search mu_ found %v; _ must not match any character", rows)
			}
			if rows := records(t, s.call(t, "list_products", map[string]any{"search": "100% cotton_"})); len(rows) != 1 {
				t.Errorf("search for 100%% cotton_ found %v; want the shirt", rows)
			}
			if r := s.call(t, "list_products", map[string]any{"search": "   "}); r.text() != "invalid: search: give at least one word" {
				t.Errorf("blank search: %q; want it refused once, in one sentence", r.text())
			}
			for _, bad := range []map[string]any{{"filter": "sku == 'MUG-1'"}, {"filter": "cost_price > 1.0"}, {"orderBy": "name"}} {
				if r := s.call(t, "list_products", bad); !r.IsError {
					t.Errorf("list_products %v: not refused; the config does not allow it", bad)
				}
			}
			if rows := records(t, s.call(t, "list_products", map[string]any{"filter": "price > 10.0"})); len(rows) != 2 {
				t.Errorf("filter price > 10 = %v; want 2 rows", rows)
			}
			res := s.post(t, "resources/read", map[string]any{"uri": "db://entities"})
			if res.Status != 200 || res.Error != nil || !contains(string(res.Result), "Products the shop sells") || contains(string(res.Result), "cost_price") {
				t.Errorf("db://entities: status %d, error %+v, %.300s; want the description and no hidden column", res.Status, res.Error, res.Result)
			}
			if c := s.call(t, "get_product", map[string]any{"sku": "MUG-1"}); !c.IsError {
				t.Errorf("get_product by sku, no longer the natural key: %s; want it refused", c.text())
			}
		})
	}
}

// A config file with a mistake stops start-up with one line naming the
// file, the line and the column.
func TestServeConfigErrors(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	for _, tt := range []struct{ name, config, want string }{
		{"unknown key", "tables:\n  products:\n    hiden: [cost_price]\n", `:3:5: unknown key "hiden" in table products`},
		{"unknown top key", "table:\n  products: {}\n", `:1:1: unknown key "table"`},
		{"unknown table", "tables:\n  prodcuts:\n    description: x\n", `:2:3: table "prodcuts" is not in`},
		{"unknown hidden column", "tables:\n  products:\n    hidden: [cost]\n", `:3:14: table products has no column "cost" to hide`},
		{"unknown filter column", "tables:\n  products:\n    filter: [name, prise]\n", `:3:20: table products has no column "prise"`},
		{"hidden and filtered", "tables:\n  products:\n    hidden: [cost_price]\n    filter: [cost_price]\n", `:4:14: filter names "cost_price", which is hidden`},
		{"search on a number", "tables:\n  products:\n    search: [price]\n", `:3:14: search names "price", which is number`},
		{"hidden and aggregated", "tables:\n  products:\n    hidden: [cost_price]\n    aggregate: [price, cost_price]\n", `:4:24: aggregate names "cost_price", which is hidden`},
		{"aggregate nothing", "tables:\n  products:\n    aggregate: []\n", `:2:3: aggregate: [] names no field`},
		{"nullable natural key", "tables:\n  products:\n    natural_key: description\n", `natural_key "description" may be NULL`},
		{"list as text", "tables:\n  products:\n    sort: price\n", `:3:11: table products: sort must be a list`},
		{"twice", "tables:\n  products: {}\n  products: {}\n", `:3:3: "products" is given twice in tables (first at line 2)`},
		{"alias", "tables:\n  products: &p {}\n  customers: *p\n", `anchors and aliases are not allowed`},
		{"not YAML", "tables: [\n", `serve.yaml: `},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conf := filepath.Join(t.TempDir(), "serve.yaml")
			if err := os.WriteFile(conf, []byte(tt.config), 0o600); err != nil {
				t.Fatal(err)
			}
			code, stderr := failServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-config", conf})
			if code != exitFailed || !contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 1 and one line with %q", code, stderr, tt.want)
			}
		})
	}
}

// -stdio serves one client on stdin and stdout, and nothing but protocol
// messages reaches stdout; the start-up lines go to stderr.
func TestServeStdio(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr ferrytest.Buffer
	e := &env{stdin: inR, stdout: outW, stderr: &stderr, getenv: envFunc(nil)}
	done := make(chan int, 1)
	go func() {
		done <- run(t.Context(), []string{"serve", "-db", d.url, "-stdio", "-writes"}, e)
		_ = outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	ask := func(req string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, req+"\n"); err != nil {
			t.Fatalf("write: %v (stderr: %s)", err, stderr.String())
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %s: %v (stderr: %s)", req, lines.Err(), stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("stdout line %q: %v", lines.Text(), err)
		}
		return m
	}
	list := ask(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`)
	tools, _ := list["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 11 {
		t.Errorf("tools over stdio with -writes: %d; want 11", len(tools))
	}
	call := ask(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_customer","arguments":{"email":"bo@example.com"},` + meta + `}}`)
	if res, _ := call["result"].(map[string]any); res == nil || res["isError"] == true {
		t.Errorf("create_customer over stdio: %v", call)
	}
	_ = inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d at the end of input: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ferry serve -stdio did not end with its input")
	}
	if !contains(stderr.String(), "serving MCP over stdio") {
		t.Errorf("stderr: %s", stderr.String())
	}
	var n int
	if err := d.db.QueryRow("SELECT count(*) FROM customers WHERE email = 'bo@example.com'").Scan(&n); err != nil || n != 1 {
		t.Errorf("the customer created over stdio: %d, %v", n, err)
	}
}

// A start-up step that takes longer than the progress delay says what it
// is doing; one that ends first says nothing.
func TestServeProgressLine(t *testing.T) {
	var stderr ferrytest.Buffer
	s := &server{env: &env{stderr: &stderr}}
	s.progress("quick…", time.Hour)()
	if stderr.String() != "" {
		t.Errorf("a quick step printed %q", stderr.String())
	}
	stop := s.progress("reading the tables of shop.db…", time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for stderr.String() == "" && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stop()
	stop()
	if got, want := stderr.String(), "ferry serve: reading the tables of shop.db…\n"; got != want {
		t.Errorf("progress = %q; want %q", got, want)
	}
}

// A MySQL password full of URL and DSN syntax reaches the server as it
// is, whether percent-encoded in the URL or given in $FERRY_DB_PASSWORD.
func TestServeMySQLPasswordWithSyntax(t *testing.T) {
	d := mysqlTestDB(t)
	d.shop(t)
	u, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	user := freshName("fu_")
	const pw = `p@ss/w:rd?#%&;)(tcp(evil:1)/x?allowAllFiles=true`
	mustExec(t, d.db, "CREATE USER '"+user+"'@'%' IDENTIFIED BY '"+strings.ReplaceAll(pw, "'", "''")+"'",
		"GRANT SELECT ON "+strings.TrimPrefix(u.Path, "/")+".* TO '"+user+"'@'%'")
	t.Cleanup(func() {
		if _, err := d.db.Exec("DROP USER '" + user + "'@'%'"); err != nil {
			t.Errorf("drop user %s: %v", user, err)
		}
	})
	u.User = url.UserPassword(user, pw)
	s := startServe(t, []string{"-db", u.String(), "-http", "127.0.0.1:0"})
	if rows := records(t, s.call(t, "list_customers", nil)); len(rows) != 1 {
		t.Errorf("list_customers as %s: %v", user, rows)
	}
	if e := s.stderr.String(); contains(e, "w:rd") || !contains(e, user+":xxxxx@") {
		t.Errorf("stderr shows the password or no redaction:\n%s", e)
	}
	u.User = url.User(user)
	s = startServe(t, []string{"-db", u.String(), "-http", "127.0.0.1:0"}, "FERRY_DB_PASSWORD", pw)
	if rows := records(t, s.call(t, "list_customers", nil)); len(rows) != 1 {
		t.Errorf("list_customers with the password from the environment: %v", rows)
	}
	code, stderr := failServe(t, []string{"-db", u.String(), "-http", "127.0.0.1:0"}, "FERRY_DB_PASSWORD", pw+"x")
	if code != exitFailed || !contains(stderr, "cannot connect") || contains(stderr, "w:rd") {
		t.Errorf("a wrong password: exit %d, %q", code, stderr)
	}
}

// A legacy (2025-06-18) client, which starts with initialize and carries
// its session id, gets the same tools.
func TestServeLegacyEra(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
	post := func(session, body string) (*http.Response, map[string]any) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp, m
	}
	resp, init := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"legacy","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d, session %q, %v", resp.StatusCode, session, init)
	}
	info, _ := init["result"].(map[string]any)["serverInfo"].(map[string]any)
	if info["title"] != "ferry serve: shop.db" || contains(fmt.Sprint(init), filepath.Dir(d.url)) {
		t.Errorf("serverInfo %v shows more than the database's name (or not it)", info)
	}
	if ins, _ := init["result"].(map[string]any)["instructions"].(string); !contains(ins, "read-only") {
		t.Errorf("instructions %q", ins)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, list := post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	tools, _ := list["result"].(map[string]any)["tools"].([]any)
	if len(tools) != len(readTools) {
		t.Errorf("legacy tools/list: %v", list)
	}
	_, call := post(session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_customer","arguments":{"email":"ada@example.com"}}}`)
	if res, _ := call["result"].(map[string]any); res == nil || res["isError"] == true || !contains(fmt.Sprint(res["structuredContent"]), "Ada") {
		t.Errorf("legacy get_customer: %v", call)
	}
}

// A table and a column whose names need quoting can be configured: the
// config names them as the database does.
func TestServeConfigOddNames(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
			if d.engine == "mysql" {
				q = func(s string) string { return "`" + s + "`" }
			}
			mustExec(t, d.db,
				"CREATE TABLE "+q(`Odd "Name`)+" (id INTEGER PRIMARY KEY, "+q("Secret Col")+" VARCHAR(20), label VARCHAR(20))",
				"INSERT INTO "+q(`Odd "Name`)+" VALUES (1, 'hush', 'shown')")
			conf := filepath.Join(t.TempDir(), "serve.yaml")
			if err := os.WriteFile(conf, []byte("tables:\n  'Odd \"Name':\n    hidden: [Secret Col]\n    description: A table with an odd name.\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-config", conf})
			l := s.tools(t)
			if len(l.Tools) != 2 {
				t.Fatalf("tools: %v", l.names())
			}
			list := l.Tools[1].Name
			rows := records(t, s.call(t, list, nil))
			if len(rows) != 1 || rows[0]["label"] != "shown" || len(rows[0]) != 2 {
				t.Errorf("%s = %v; want id and label only", list, rows)
			}
			if !contains(l.Tools[1].Description, "A table with an odd name.") {
				t.Errorf("%s description: %s", list, l.Tools[1].Description)
			}
		})
	}
}

// A full-text index introspection finds gives search by words; a config
// naming the index's fields keeps it, and one naming other fields
// searches them by substring instead.
func TestServeSearchIndexOrLike(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	es, err := entity.Introspect(t.Context(), d.db, entity.SQLite, &entity.IntrospectOptions{Tables: []string{"products"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entity.CreateSearchIndex(t.Context(), d.db, entity.SQLite, es[0], &entity.SearchIndexOptions{Fields: []string{"name", "description"}}); err != nil {
		t.Fatal(err)
	}
	config := func(yaml string) []string {
		if yaml == "" {
			return nil
		}
		conf := filepath.Join(t.TempDir(), "serve.yaml")
		if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"-config", conf}
	}
	for _, tt := range []struct {
		name, yaml string
		mu, mug    int // rows found by "mu" and by "mug"
	}{
		{"index", "", 0, 2},
		{"index named by the config", "tables:\n  products:\n    search: [description, name]\n", 0, 2},
		{"other fields", "tables:\n  products:\n    search: [name]\n", 2, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := startServe(t, append([]string{"-db", d.url, "-http", "127.0.0.1:0", "-tables", "products"}, config(tt.yaml)...))
			for word, want := range map[string]int{"mu": tt.mu, "mug": tt.mug} {
				if rows := records(t, s.call(t, "list_products", map[string]any{"search": word})); len(rows) != want {
					t.Errorf("search %q found %d rows; want %d", word, len(rows), want)
				}
			}
		})
	}
	s := startServe(t, append([]string{"-db", d.url, "-http", "127.0.0.1:0", "-tables", "products"}, config("tables:\n  products:\n    search: []\n")...))
	if r := s.call(t, "list_products", map[string]any{"search": "mug"}); !r.IsError {
		t.Errorf("search: [] left search on: %s", r.text())
	}
}

// A view is served with read tools only, even with -writes.
func TestServeViewIsReadOnly(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			d.shop(t)
			mustExec(t, d.db, "CREATE VIEW cheap_products AS SELECT id, sku, name, price FROM products WHERE price < 15")
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-writes", "-tables", "cheap_products"})
			names := s.tools(t).names()
			if slices.ContainsFunc(names, func(n string) bool {
				return strings.HasPrefix(n, "create_") || strings.HasPrefix(n, "update_") || strings.HasPrefix(n, "delete_")
			}) || !slices.Contains(names, "list_cheap_products") {
				t.Errorf("tools of a view with -writes: %v; want read tools only", names)
			}
			if rows := records(t, s.call(t, "list_cheap_products", nil)); len(rows) != 2 {
				t.Errorf("list_cheap_products = %v; want the two mugs", rows)
			}
		})
	}
}

// A file that is not a SQLite database is named as such, with no hint
// about a server, host or port that SQLite does not have.
func TestServeNotASQLiteFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(p, []byte("these are not the tables you are looking for, padded past one page of SQLite header bytes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stderr := failServe(t, []string{"-db", p, "-stdio"})
	if code != exitFailed || !contains(stderr, "check that it is a SQLite database file") || contains(stderr, "server runs") {
		t.Errorf("a text file as -db: exit %d, %q", code, stderr)
	}
}

const aggregateConfig = `tables:
  products:
    hidden: [cost_price]
    filter: [name, sku, price]
    aggregate: [price]
`

// aggregate: in the config serves aggregate_products over the fields it
// names, grouped by the filter fields; the hidden column is no
// aggregate, group nor filter, and the answer is the same on every
// engine.
func TestServeAggregate(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			d.shop(t)
			conf := filepath.Join(t.TempDir(), "serve.yaml")
			if err := os.WriteFile(conf, []byte(aggregateConfig), 0o600); err != nil {
				t.Fatal(err)
			}
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-config", conf})
			var found bool
			for _, tool := range s.tools(t).Tools {
				if tool.Name != "aggregate_products" {
					continue
				}
				found = true
				if contains(string(tool.InputSchema), "cost_price") || contains(tool.Description, "cost_price") {
					t.Errorf("aggregate_products mentions the hidden column: %s %s", tool.Description, tool.InputSchema)
				}
			}
			if !found {
				t.Fatalf("no aggregate_products among %v", s.tools(t).names())
			}
			got := s.call(t, "aggregate_products", map[string]any{
				"aggregates": []string{"count", "sum(price)", "max(price)"},
				"filter":     `name.endsWith("mug")`,
			})
			want := `{"data":[{"count":2,"sum(price)":20.5,"max(price)":11}],"paging":{"skip":0,"top":100,"hasMore":false}}`
			if !sameJSON(got.text(), want) {
				t.Errorf("aggregate_products = %s; want %s", got.text(), want)
			}
			for _, bad := range []map[string]any{
				{"aggregates": []string{"sum(cost_price)"}},
				{"groupBy": []string{"cost_price"}},
				{"groupBy": []string{"description"}},
				{"filter": "cost_price > 1.0"},
			} {
				if r := s.call(t, "aggregate_products", bad); !r.IsError || contains(r.text(), "2.1") {
					t.Errorf("aggregate_products %v = %s; want it refused", bad, r.text())
				}
			}
		})
	}
}

// sameJSON reports whether two JSON texts hold equal values, numbers
// compared by value (a DECIMAL's sum is 20.50 on some engines).
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
