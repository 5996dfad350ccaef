package entity_test

import (
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// wordsSearcher refuses a search text with no word as a searcher of the
// service's own may, with a refusal that names the argument itself.
type wordsSearcher struct{}

func (wordsSearcher) Match(_ *entity.Entity, alias, text string, bind func(any) string) (string, string, error) {
	if strings.TrimSpace(text) == "" {
		return "", "", ferry.Invalid("search: give at least one word")
	}
	return alias + ".name = " + bind(text), "", nil
}

// A search with no word is refused once, in one sentence that says what
// to send, whether the package's own index or a service's searcher
// refuses it: never "invalid: search: invalid: search: ...".
func TestBlankSearchRefusedInOneSentence(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			c := serveSearchable(t, db, entity.Engine(e.Name), nil)
			msg, path := refusalOf(t, c, "list_products", `{"search":"   "}`)
			if msg != "invalid: search: give at least one word (letters or digits)" || path != "search" {
				t.Errorf("blank search: %q at %q", msg, path)
			}

			srv := quiet()
			set, err := entity.NewSet(srv, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := entity.Add[Category](set, &entity.Options{Searcher: wordsSearcher{}}); err != nil {
				t.Fatal(err)
			}
			msg, path = refusalOf(t, serve(t, srv), "list_categories", `{"search":" "}`)
			if msg != "invalid: search: give at least one word" || path != "search" {
				t.Errorf("blank search, the service's searcher: %q at %q", msg, path)
			}
		})
	}
}
