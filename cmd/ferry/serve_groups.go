package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

// discoveryThreshold is the tool count above which ferry serve turns
// discovery mode on by itself (-discovery auto): several clients take at
// most 128 tools, others 40 to 80, and every tool listed costs the model
// context before it does anything.
const discoveryThreshold = 80

// groupConfig is what the flags say of groups and discovery mode.
type groupConfig struct {
	discovery string // "auto", "on" or "off"
	endpoints bool   // -group-endpoints
	toolsets  bool   // -toolsets
}

func (c *groupConfig) register(fs *flag.FlagSet) {
	c.discovery = "auto"
	fs.Func("discovery", fmt.Sprintf("discovery mode: on, off, or auto (on above %d tools): tools/list carries search_tools and call_tool instead of every tool (default auto)", discoveryThreshold),
		func(v string) error {
			switch v {
			case "auto", "on", "off":
				c.discovery = v
				return nil
			}
			return fmt.Errorf("%q: give on, off or auto", v)
		})
	fs.BoolVar(&c.toolsets, "toolsets", false, "with -stdio, a legacy (2025) client starts with a toolsets tool and enables the groups it needs; its lists then change")
	fs.BoolVar(&c.endpoints, "group-endpoints", false, "also serve each group of tools at its own endpoint, /mcp/{group} (a table's group is its schema and its plural name; a query's, its schema)")
}

// tableGroups are the groups of a table's tools: its schema (the
// database's name where tables have none, as in SQLite) and the entity's
// own (its plural name). A name that cannot be a group is left out.
// With several sources, the source's name takes the schema's place
// (planTables).
func tableGroups(e *entity.Entity, db *openedDB) []string {
	var groups []string
	ns := e.Schema
	if ns == "" {
		ns = strings.TrimSuffix(db.name, ".db")
	}
	if g := groupOf(ns); g != "" {
		groups = append(groups, g)
	}
	if g := groupOf(e.Plural); g != "" && !slices.Contains(groups, g) {
		groups = append(groups, g)
	}
	if groups == nil {
		return []string{}
	}
	return groups
}

// groupOf turns a name into a group name, '_' for the characters a group
// name may not have, or "" when nothing valid is left.
func groupOf(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			b[i] = '_'
		}
	}
	g := strings.Trim(string(b), "_")
	if ferry.ValidGroupName(g) != nil {
		return ""
	}
	return g
}

// toolsets returns the legacy toolsets -toolsets asks for, or nil.
func (c *groupConfig) toolsetOptions() *ferry.ToolsetOptions {
	if !c.toolsets {
		return nil
	}
	return &ferry.ToolsetOptions{}
}

// applyDiscovery turns discovery mode on when -discovery says so, or, by
// default, when the catalog has more than discoveryThreshold tools, and
// says so.
func (s *server) applyDiscovery(srv *ferry.Server) {
	n := len(srv.Catalog().Tools())
	switch s.cfg.groups.discovery {
	case "off":
		return
	case "auto":
		if n <= discoveryThreshold {
			return
		}
		s.say("discovery mode: %d tools are more than %d, so tools/list carries search_tools and call_tool, which find and call them (-discovery off lists every tool)", n, discoveryThreshold)
	default:
		s.say("discovery mode: tools/list carries search_tools and call_tool, which find and call the %d tools", n)
	}
	srv.SetDiscovery(&ferry.DiscoveryOptions{})
}

// mountGroups serves each group at /mcp/{group} when -group-endpoints
// asks, behind the same middleware as /mcp, and prints the endpoints.
func (s *server) mountGroups(mux *http.ServeMux, srv *ferry.Server, hopts *ferry.HTTPOptions, mw func(http.Handler) http.Handler, base string) error {
	if !s.cfg.groups.endpoints {
		return nil
	}
	opts := *hopts
	opts.GroupPathValue = "group"
	h, err := newHandler(srv, &opts)
	if err != nil {
		return err
	}
	mux.Handle("/mcp/{group}", mw(h))
	groups := srv.Groups()
	urls := make([]string, len(groups))
	for i, g := range groups {
		urls[i] = fmt.Sprintf("%s/%s (%d %s)", base, g.Name, g.Tools, plural(g.Tools, "tool", "tools"))
	}
	s.say("group endpoints, %d: %s", len(groups), nameList(urls, maxListed))
	return nil
}

// queryGroups are the groups of a source's queries: its namespace, as
// its tables have (tableGroups): the source's name with several sources,
// else the schema tables are read from (the database's name where tables
// have none). A query is no table, so it has no group of its own; its
// file may name more (@groups).
func queryGroups(ctx context.Context, src *source) ([]string, error) {
	if src.groups != nil {
		return slices.Clone(src.groups), nil
	}
	db := src.db
	ns := strings.TrimSuffix(db.name, ".db")
	if db.engine == entity.PostgreSQL {
		var err error
		if ns, err = pgSchema(ctx, db); err != nil {
			return nil, err
		}
	}
	if g := groupOf(ns); g != "" {
		return []string{g}, nil
	}
	return []string{}, nil
}

// withGroups returns the groups ns followed by those of own not in ns:
// a query's groups as ferry serve gives them, its source's and those its
// file names.
func withGroups(ns, own []string) []string {
	out := slices.Clone(ns)
	for _, g := range own {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}
