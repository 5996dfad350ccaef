package main

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/ferry-mcp/ferry/entity"
)

// maxNotes is how many table notes start-up prints; maxColumnsNoted how
// many columns one note names.
const (
	maxNotes        = 20
	maxColumnsNoted = 10
)

// tableNotes are what start-up says of one served table beyond its name:
// the columns left out because their types are not served, why it has
// no get tool, and, with writes, why it has no create tool. A column
// hidden on purpose (the config's hidden) is not mentioned unless it
// keeps create out, nor is a view, which is read-only by nature.
func tableNotes(e *entity.Entity, writes bool) []string {
	var notes []string
	name := tableName(e.Table)
	if len(e.Unserved) > 0 {
		cols := make([]string, len(e.Unserved))
		for i, c := range e.Unserved {
			cols[i] = tableName(c.Name) + " (" + printable(c.Type) + ")"
		}
		notes = append(notes, name+": columns left out, their types not served: "+joinLimited(cols, maxColumnsNoted))
	}
	if e.Key == "" && !e.View {
		why := e.KeyNote
		if why == "" {
			why = "it has no single-column key"
		}
		tools, need := "list only, no get tool", "get, update and delete name"
		if e.NaturalKey != "" {
			tools, need = "get and list only", "update and delete name"
		}
		notes = append(notes, name+": "+tools+": "+printable(why)+"; "+need+" a record by a single-column key")
	}
	if writes && e.Key != "" && !e.View && e.CreateNote != "" {
		notes = append(notes, name+": no create tool: "+printable(e.CreateNote)+"; to create, serve the column or give it a default")
	}
	return notes
}

// printable is s as stderr shows it: as it is when every character is
// printable, else quoted, so that a type or key name cannot drive the
// terminal.
func printable(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(s)
	}
	return s
}

// sayNotes prints the tables' notes, at most maxNotes of them.
// where leads each ("source NAME: " with several sources), and
// scheme://entities describes the tables.
func (s *server) sayNotes(where, scheme string, notes []string) {
	for i, n := range notes {
		if i == maxNotes {
			s.say("%s%d more notes like these; %s://entities describes every table", where, len(notes)-i, scheme)
			return
		}
		s.say("%s%s", where, n)
	}
}
