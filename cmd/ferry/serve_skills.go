package main

import (
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

// addTableSkills serves, for -skills, one skill per table that says what
// its tools are for and in which order to call them
// ([ferry.Server.AddToolSkill]), named after the table. It returns the
// skills' names.
func addTableSkills(srv *ferry.Server, tables []*entity.Entity) []string {
	catalog := srv.Catalog()
	var names []string
	seen := map[string]bool{}
	for _, e := range tables {
		name := skillName(e.Table)
		if name == "" || seen[name] {
			continue // a table whose name makes no skill name, or the same one as another's
		}
		var tools []string
		for _, t := range []string{"list_" + e.Plural, "aggregate_" + e.Plural, "get_" + e.Name,
			"create_" + e.Name, "update_" + e.Name, "delete_" + e.Name} {
			if _, ok := catalog.Lookup(t); ok {
				tools = append(tools, t)
			}
		}
		if len(tools) == 0 {
			continue
		}
		seen[name] = true
		desc := "How to find, read and change the records of the table " + e.Table +
			" with its tools, and in which order to call them."
		instructions := e.Description
		if instructions == "" {
			instructions = "The table " + e.Table + " of the database."
		}
		srv.AddToolSkill(ferry.ToolSkill{Name: name, Description: desc, Tools: tools,
			Instructions: instructions + " " + resourceScheme + "://entities describes its fields."})
		names = append(names, name)
	}
	return names
}

// skillName makes a table's name a skill's: lowercase letters, digits
// and single hyphens, at most 64; "" if nothing is left.
func skillName(table string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(table) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			hyphen = false
		} else {
			hyphen = true
		}
	}
	s := b.String()
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-")
	}
	return s
}
