package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity"
)

func TestTableGroups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		schema, plural, db string
		want               []string
	}{
		{"sales", "orders", "shop", []string{"sales", "orders"}},
		{"", "orders", "shop.db", []string{"shop", "orders"}},
		{"", "orders", "orders", []string{"orders"}},
		{"caf\u00e9", "men\u00fcs", "x", []string{"caf", "men__s"}},
		{"", "", "\u00e9", []string{}},
	}
	for _, tt := range tests {
		got := tableGroups(&entity.Entity{Schema: tt.schema, Plural: tt.plural}, &openedDB{name: tt.db})
		if !slices.Equal(got, tt.want) || got == nil {
			t.Errorf("tableGroups(%q, %q, %q) = %q, want %q", tt.schema, tt.plural, tt.db, got, tt.want)
		}
	}
}

// manyTables makes n tables with a key, two tools each when read-only.
func manyTables(t *testing.T, d *testDB, n int) {
	t.Helper()
	for i := range n {
		mustExec(t, d.db, fmt.Sprintf("CREATE TABLE widget%d (id integer PRIMARY KEY, label varchar(50))", i))
	}
}

func TestServeDiscoveryAuto(t *testing.T) {
	d := sqliteTestDB(t)
	manyTables(t, d, 41) // 82 tools: above the threshold
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
	if diff := slices.Compare([]string{"call_tool", "search_tools"}, s.tools(t).names()); diff != 0 {
		t.Fatalf("tools in discovery mode: %v", s.tools(t).names())
	}
	if !contains(s.stderr.String(), "discovery mode: 82 tools are more than 80") {
		t.Errorf("stderr does not say discovery mode is on:\n%s", s.stderr.String())
	}
	found := s.call(t, "search_tools", map[string]any{"query": "show widget17 by id"})
	if !strings.Contains(found.text(), "get_widget17") {
		t.Errorf("search: %s", found.text())
	}
	mustExec(t, d.db, "INSERT INTO widget3 (id, label) VALUES (7, 'blue')")
	res := s.call(t, "call_tool", map[string]any{"name": "get_widget3", "arguments": map[string]any{"id": 7}})
	if res.IsError || !strings.Contains(res.text(), "blue") {
		t.Errorf("call_tool get_widget3: %s", res.text())
	}
	// Forced off: every tool.
	off := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-discovery", "off"})
	if n := len(off.tools(t).Tools); n != 82 {
		t.Errorf("-discovery off lists %d tools, want 82", n)
	}
}

func TestServeDiscoveryForced(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-discovery", "on"})
	if got := s.tools(t).names(); !slices.Equal(got, []string{"call_tool", "search_tools"}) {
		t.Errorf("-discovery on lists %v", got)
	}
	if code, stderr := failServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-discovery", "maybe"}); code != exitUsage || !contains(stderr, "give on, off or auto") {
		t.Errorf("-discovery maybe: exit %d, %s", code, stderr)
	}
}

var (
	groupLine = regexp.MustCompile(`group endpoints, (\d+): (.*)`)
	allTables = regexp.MustCompile(`(http://[^ "]+/mcp/[^ "]+) \(5 tools\)`)
)

func TestServeGroupEndpoints(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			d.shop(t)
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-group-endpoints"})
			m := groupLine.FindStringSubmatch(s.stderr.String())
			if m == nil || !strings.Contains(m[2], s.url+"/products (2 tools)") {
				t.Fatalf("stderr does not print the products endpoint:\n%s", s.stderr.String())
			}
			r := mcpPost(t, s.url+"/products", "tools/list", nil)
			var l toolList
			if err := json.Unmarshal(r.Result, &l); err != nil {
				t.Fatal(err)
			}
			if got := l.names(); !slices.Equal(got, []string{"get_product", "list_products"}) && !slices.Equal(got, []string{"list_products", "get_product"}) {
				t.Errorf("tools at /mcp/products: %v", got)
			}
			// Every table is in its schema's group too: that endpoint serves all of them.
			var schema string
			if all := allTables.FindStringSubmatch(m[2]); all != nil {
				schema = all[1]
			}
			if schema == "" {
				t.Fatalf("no group of every table in %s", m[2])
			}
			r = mcpPost(t, schema, "tools/list", nil)
			if err := json.Unmarshal(r.Result, &l); err != nil || len(l.Tools) != 5 {
				t.Errorf("tools at %s: %v, %v", schema, l.names(), err)
			}
			if r := mcpPost(t, s.url+"/nothing", "tools/list", nil); r.Status != 404 {
				t.Errorf("an unknown group's endpoint answered %d", r.Status)
			}
		})
	}
}

// A -queries tool is in its source's group, as the tables are (the
// schema, or the database's name), and in the groups its file names
// (@groups): the endpoint of either serves it.
func TestServeQueryGroups(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			d.shop(t)
			dir := t.TempDir()
			text := "-- name: mugs :many\n-- @groups products\nSELECT sku FROM products WHERE sku LIKE 'MUG-%'\n" +
				"-- name: customer_count :one\nSELECT COUNT(*) AS n FROM customers\n"
			if err := os.WriteFile(filepath.Join(dir, "q.sql"), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			s := startServe(t, []string{"-db", d.url, "-queries", dir, "-http", "127.0.0.1:0", "-group-endpoints", "-discovery", "off"})
			m := groupLine.FindStringSubmatch(s.stderr.String())
			if m == nil {
				t.Fatalf("stderr does not print the group endpoints:\n%s", s.stderr.String())
			}
			list := func(url string) []string {
				t.Helper()
				var l toolList
				if r := mcpPost(t, url, "tools/list", nil); json.Unmarshal(r.Result, &l) != nil {
					t.Fatalf("tools/list at %s: %d %+v", url, r.Status, r.Error)
				}
				got := l.names()
				slices.Sort(got)
				return got
			}
			if got, want := list(s.url+"/products"), []string{"get_product", "list_products", "mugs"}; !slices.Equal(got, want) {
				t.Errorf("tools at /mcp/products: %v, want %v", got, want)
			}
			// The source's group (5 tools of tables, 2 queries) holds every one.
			ns := regexp.MustCompile(`(http://[^ "]+/mcp/[^ "]+) \(7 tools\)`).FindStringSubmatch(m[2])
			if ns == nil {
				t.Fatalf("no group of every table and query in %s", m[2])
			}
			if got := list(ns[1]); len(got) != 7 || !slices.Contains(got, "customer_count") || !slices.Contains(got, "mugs") {
				t.Errorf("tools at %s: %v", ns[1], got)
			}
		})
	}
}
