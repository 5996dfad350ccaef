package entity

import "github.com/ferry-mcp/ferry/schema"

// ListSchema returns the output schema of the list tool of the Set's
// entity named name, for external tests that check results against it.
func ListSchema(s *Set, name string) *schema.Schema {
	for _, t := range s.tables {
		if t.e.Name == name {
			return t.listSchema()
		}
	}
	return nil
}
