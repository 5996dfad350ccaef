package likesearch_test

import (
	"fmt"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/likesearch"
	"github.com/ferry-mcp/ferry/entity"
)

// A search for two words on two fields: each word must be in one of them,
// and the words are bound, their wildcards escaped.
func ExampleSearcher() {
	e := &entity.Entity{Name: "product", Fields: []*entity.Field{
		{Name: "name", Column: "name", Type: entity.Text},
		{Name: "description", Column: "description", Type: entity.Text},
	}}
	var args []any
	bind := func(v any) string { args = append(args, v); return "?" }
	s := &likesearch.Searcher{Engine: entity.SQLite, Fields: []string{"name", "description"}}
	cond, err := s.Condition(e, "t", "blue 100%", bind)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cond)
	fmt.Println(args)
	// Output:
	// (LOWER(t."name") LIKE ? ESCAPE '!' OR LOWER(t."description") LIKE ? ESCAPE '!') AND (LOWER(t."name") LIKE ? ESCAPE '!' OR LOWER(t."description") LIKE ? ESCAPE '!')
	// [%blue% %blue% %100!%% %100!%%]
}
