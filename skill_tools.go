package ferry

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file holds the skills a server writes about its own tools
// ([Server.AddToolSkill]): a usage guide that ships with the service,
// written from what the server already knows of its tools (their
// descriptions, arguments and hints), so that a model that loads it
// knows which tool is for what and in which order to call them.

// ToolSkill describes a skill the server writes about some of its tools.
type ToolSkill struct {
	// Name is the skill's name: 1 to 64 lowercase letters, digits and
	// single hyphens.
	Name string
	// Description says when a model should load the skill. If empty, it
	// names the tools.
	Description string
	// Group, if not empty, picks the tools of that group ([Tool.Groups]),
	// in name order, after Tools.
	Group string
	// Tools are the tools the skill covers, by name. Each must be
	// registered when AddToolSkill is called.
	Tools []string
	// Instructions, if not empty, come first in the skill's body: what
	// the tools are for, what to watch for, in the service's own words.
	Instructions string
	// Scopes, Roles and Groups are the skill's, as for [Skill].
	Scopes []string
	Roles  []string
	Groups []string
}

// AddToolSkill writes a skill about the tools ts names and serves it, as
// [Server.AddSkill] serves one: its SKILL.md describes each tool (its
// description, its arguments, what it changes) and says in which order
// to call them: the tools that only read first (those that list or
// search before those that fetch one thing), then those that add, then
// those that overwrite, and the destructive ones last, after the user
// agreed. The tools must be registered first; a name that is not, or no
// tool at all, is a start-up problem (see [Server.Check]).
func (s *Server) AddToolSkill(ts ToolSkill) {
	if !validSkillName(ts.Name) {
		s.problem(fmt.Errorf("tool skill %q: a skill's name is 1 to 64 lowercase letters, digits and single hyphens, neither first nor last", ts.Name))
		return
	}
	tools, groupDoc, err := s.skillTools(&ts)
	if err != nil {
		s.problem(fmt.Errorf("tool skill %q: %w", ts.Name, err))
		return
	}
	md := toolSkillMarkdown(&ts, tools, groupDoc)
	if s.skills == nil {
		s.problem(fmt.Errorf("tool skill %q: the skills extension is off: set ServerOptions.Skills", ts.Name))
		return
	}
	fm, err := parseFrontMatter(md)
	if err != nil { // the description is quoted and bounded: a bug if it fails
		s.problem(fmt.Errorf("tool skill %q: %w", ts.Name, err))
		return
	}
	s.serveSkill(ts.Name, fm, map[string][]byte{"SKILL.md": md}, Skill{Scopes: ts.Scopes, Roles: ts.Roles, Groups: ts.Groups})
}

// skillTool is what a tool skill says of one tool.
type skillTool struct {
	Tool
	info     ToolInfo
	in       json.RawMessage
	rank     int
	position int
}

// skillTools returns the tools ts covers, in the order to call them,
// and the description of its group.
func (s *Server) skillTools(ts *ToolSkill) ([]skillTool, string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []skillTool
	seen := map[string]bool{}
	var missing []string
	add := func(e *toolEntry) {
		if seen[e.tool.Name] {
			return
		}
		seen[e.tool.Name] = true
		out = append(out, skillTool{Tool: e.tool, info: e.info, in: e.in, rank: toolRank(e.tool.Name, &e.info), position: len(out)})
	}
	for _, name := range ts.Tools {
		if e, ok := s.tools.get(name); ok {
			add(e)
		} else {
			missing = append(missing, name)
		}
	}
	if ts.Group != "" {
		for _, e := range s.tools.sorted {
			if slices.Contains(e.info.Groups, ts.Group) {
				add(e)
			}
		}
	}
	switch {
	case len(missing) > 0:
		return nil, "", fmt.Errorf("no tool named %s (register the tools first)", strings.Join(missing, ", "))
	case len(out) == 0:
		return nil, "", fmt.Errorf("no tool in the group %q and none named", ts.Group)
	}
	slices.SortStableFunc(out, func(a, b skillTool) int { return a.rank - b.rank })
	return out, s.groupDocs[ts.Group], nil
}

// The ranks of a tool in a tool skill's order of calls.
const (
	rankFind      = iota // reads, and finds things: list, search
	rankRead             // reads one thing
	rankAdd              // writes, destroying nothing
	rankOverwrite        // writes over what is there
	rankDestroy          // may destroy
)

// toolRank places a tool in the order of calls, from its hints and,
// among the tools that read, from its name.
func toolRank(name string, info *ToolInfo) int {
	switch {
	case info.ReadOnly:
		for _, verb := range []string{"list", "search", "find", "query", "count", "aggregate"} {
			if name == verb || strings.HasPrefix(name, verb+"_") {
				return rankFind
			}
		}
		return rankRead
	case info.Destructive && !info.Idempotent:
		return rankDestroy
	case info.Destructive:
		return rankOverwrite
	}
	return rankAdd
}

// toolSkillMarkdown writes the SKILL.md of a tool skill.
func toolSkillMarkdown(ts *ToolSkill, tools []skillTool, groupDoc string) []byte {
	var b strings.Builder
	desc := ts.Description
	if desc == "" {
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		desc = "How to use the tools " + strings.Join(names, ", ") + ": what each is for and in which order to call them."
	}
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\n---\n# %s\n\n", ts.Name, yamlQuote(truncateRunes(desc, maxSkillDescription)), ts.Name)
	for _, text := range []string{ts.Instructions, groupDoc} {
		if text = strings.TrimSpace(text); text != "" {
			b.WriteString(text + "\n\n")
		}
	}
	b.WriteString("## The tools\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "\n### `%s` (%s)\n\n", t.Name, effectOf(&t.info))
		if d := strings.TrimSpace(t.Description); d != "" {
			b.WriteString(d + "\n\n")
		}
		b.WriteString(argumentsOf(t.in) + "\n")
	}
	b.WriteString("\n## In which order\n\n")
	steps := []struct {
		rank int
		text string
	}{
		{rankFind, "Look first with %s: they only read, so call them freely to find what the user means and the keys the other tools take."},
		{rankRead, "Read one thing with %s, by the key found."},
		{rankAdd, "Then write with %s: they change data but destroy none; read first, so as not to add what is there already."},
		{rankOverwrite, "Change with %s: they overwrite what is there; read it first, and change only what the user asked."},
		{rankDestroy, "Last, and only once the user agreed: %s may destroy data that cannot be brought back."},
	}
	n := 0
	for _, st := range steps {
		var names []string
		for _, t := range tools {
			if t.rank == st.rank {
				names = append(names, "`"+t.Name+"`")
			}
		}
		if len(names) > 0 {
			n++
			fmt.Fprintf(&b, "%d. "+st.text+"\n", n, strings.Join(names, ", "))
		}
	}
	var open []string
	for _, t := range tools {
		if t.info.OpenWorld {
			open = append(open, "`"+t.Name+"`")
		}
	}
	if len(open) > 0 {
		fmt.Fprintf(&b, "\n%s reach outside this service: their answers may change between calls.\n", strings.Join(open, ", "))
	}
	return []byte(b.String())
}

// effectOf says in a few words what calling a tool changes.
func effectOf(info *ToolInfo) string {
	switch {
	case info.ReadOnly:
		return "reads only"
	case info.Destructive && info.Idempotent:
		return "overwrites; calling it again with the same arguments changes nothing more"
	case info.Destructive:
		return "may destroy data"
	case info.Idempotent:
		return "writes, destroys nothing; calling it again with the same arguments changes nothing more"
	}
	return "writes, destroys nothing"
}

// argumentsOf describes the arguments of an input schema: each
// property, whether it is required, and its description.
func argumentsOf(in json.RawMessage) string {
	var sch struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(in, &sch) != nil || len(sch.Properties) == 0 {
		return "It takes no arguments."
	}
	names := make([]string, 0, len(sch.Properties))
	for name := range sch.Properties {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { // the required ones first
		ra, rb := slices.Contains(sch.Required, a), slices.Contains(sch.Required, b)
		if ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	b.WriteString("Arguments:\n")
	for _, name := range names {
		req := ""
		if slices.Contains(sch.Required, name) {
			req = " (required)"
		}
		line := "- `" + name + "`" + req
		if d := strings.TrimSpace(sch.Properties[name].Description); d != "" {
			line += ": " + strings.Join(strings.Fields(d), " ")
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// yamlQuote returns s as a double-quoted YAML scalar that
// [parseFrontMatter] reads back as s.
func yamlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// truncateRunes returns s cut to at most n characters.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
