package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// TestDiscoveryRetrieval is the retrieval evaluation of discovery mode: a
// catalog of 500 tools (the five tools of each of the 100 entities of
// testdata/discovery_eval.txt, described as the entity layer describes
// them) and tasks in a user's words, each with the tool that does it. It
// reports the rank of the right tool (top-1 and top-5 rates) and the
// tokens (bytes / 4) of tools/list in full and in discovery mode. The
// issue's target is a top-5 rate of 90 %. The search reached 88 % of the
// first 68 tasks when this was written, then 91 % after its second round
// (stems, prefixes, irregular forms, read-only tools first for a task
// that changes nothing); the last 12 tasks were written after that round
// and held out (9 of 12), 89 % in all. Thirty more tasks were written
// and held out before the third round: 17 of 30 before it, 80 % in all.
// The third round (everyday verb phrases, a word of an operation read as
// a noun after a determiner and in names, synonyms stemmed as the words
// they stand for, hyphenated words joined, a question about a record named
// by number read as a get, two words in a row matched as a pair) reached
// 91 % in all: 67 of the first 68, 11 of the 12, 22 of the 30. The test
// fails below 90 %, so that a change that makes the search worse is seen.
//
//	go test -run DiscoveryRetrieval -v
func TestDiscoveryRetrieval(t *testing.T) {
	entities, tasks := readEval(t, "testdata/discovery_eval.txt")
	full := evalServer(entities, nil)
	disc := evalServer(entities, &ferry.DiscoveryOptions{})
	fullTokens := listTokens(t, full)
	discTokens := listTokens(t, disc)

	c := ferrytest.NewClient(t, disc, nil)
	top1, top5 := 0, 0
	var blocks []string
	blockN, blockTop5 := map[string]int{}, map[string]int{}
	for _, task := range tasks {
		if blockN[task.block] == 0 {
			blocks = append(blocks, task.block)
		}
		blockN[task.block]++
		var found struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		res := c.CallTool(t.Context(), "search_tools", map[string]any{"query": task.words, "limit": 5})
		if err := json.Unmarshal(res.StructuredContent, &found); err != nil {
			t.Fatalf("%q: %v (%+v)", task.words, err, res)
		}
		rank := 0
		for i, f := range found.Tools {
			if f.Name == task.tool {
				rank = i + 1
			}
		}
		switch {
		case rank == 1:
			top1++
			top5++
		case rank > 0:
			top5++
		}
		if rank > 0 {
			blockTop5[task.block]++
		} else {
			var got []string
			for _, f := range found.Tools {
				got = append(got, f.Name)
			}
			t.Logf("miss: %q wants %s, found %v", task.words, task.tool, got)
		}
	}
	n := len(tasks)
	t.Logf("catalog %d tools, %d tasks: top-1 %d (%.0f %%), top-5 %d (%.0f %%)",
		len(entities)*5, n, top1, pct(top1, n), top5, pct(top5, n))
	for _, b := range blocks {
		t.Logf("  %s: top-5 %d of %d (%.0f %%)", b, blockTop5[b], blockN[b], pct(blockTop5[b], blockN[b]))
	}
	t.Logf("tools/list: full mode %d tokens, discovery mode %d tokens", fullTokens, discTokens)
	if pct(top5, n) < 90 {
		t.Errorf("top-5 rate %.1f %%, want at least 90 %%", pct(top5, n))
	}
}

func pct(k, n int) float64 { return 100 * float64(k) / float64(n) }

type evalEntity struct {
	name, plural, desc string
	fields             [][2]string
}

// evalTask is a task, the tool that does it, and the block of tasks it
// was written in.
type evalTask struct{ tool, words, block string }

// readEval reads the evaluation's file.
func readEval(t *testing.T, path string) ([]evalEntity, []evalTask) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var entities []evalEntity
	var tasks []evalTask
	block := "tuned"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		kind, rest, _ := strings.Cut(line, " ")
		parts := strings.Split(rest, " | ")
		switch kind {
		case "entity":
			names := strings.Fields(parts[0])
			e := evalEntity{name: names[0], plural: names[1], desc: parts[1]}
			for fd := range strings.SplitSeq(parts[2], ", ") {
				name, doc, _ := strings.Cut(fd, ":")
				e.fields = append(e.fields, [2]string{name, doc})
			}
			entities = append(entities, e)
		case "block":
			block = strings.TrimSpace(rest)
		case "task":
			tasks = append(tasks, evalTask{tool: strings.TrimSpace(parts[0]), words: parts[1], block: block})
		}
	}
	if len(entities) < 100 || len(tasks) < 60 {
		t.Fatalf("%s: %d entities and %d tasks, want at least 100 and 60", path, len(entities), len(tasks))
	}
	return entities, tasks
}

// evalServer serves the entities' tools as the entity layer names and
// describes them.
func evalServer(entities []evalEntity, d *ferry.DiscoveryOptions) *ferry.Server {
	// The evaluation calls search_tools once per task, faster than a
	// caller may by default.
	srv := ferry.NewServer("eval", "1", &ferry.ServerOptions{Discovery: d, Limits: ferry.Limits{CallRate: -1}})
	ok := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("ok")), nil
	}
	for _, e := range entities {
		props := func(withID, fields bool) string {
			var p []string
			if withID {
				p = append(p, `"id":{"type":"integer","description":"The `+e.name+`'s id."}`)
			}
			if fields {
				for _, f := range e.fields {
					p = append(p, fmt.Sprintf(`%q:{"type":"string","description":%q}`, f[0], f[1]))
				}
			}
			return `{"type":"object","properties":{` + strings.Join(p, ",") + `}}`
		}
		// The list tool's filter names the fields, as the entity layer's
		// does (their names, not their descriptions).
		names := make([]string, len(e.fields))
		for i, f := range e.fields {
			names[i] = f[0]
		}
		list := `{"type":"object","properties":{"filter":{"type":"string","description":` +
			strconv.Quote("A CEL expression the records must meet. Fields: "+strings.Join(names, ", ")+".") + `},` +
			`"top":{"type":"integer"},"skip":{"type":"integer"}}}`
		noun := strings.ReplaceAll(e.name, "_", " ")
		tools := []ferry.Tool{
			{Name: "list_" + e.plural, Title: "List " + strings.ReplaceAll(e.plural, "_", " "), ReadOnly: true, RawInputSchema: json.RawMessage(list),
				Description: "Lists " + e.plural + ", 25 at a time (top up to 100; skip to page on), with paging.totalCount and paging.hasMore. " + e.desc},
			{Name: "get_" + e.name, Title: "Get " + noun, ReadOnly: true, RawInputSchema: json.RawMessage(props(true, false)),
				Description: "Gets one " + e.name + ". Name it by its id. " + e.desc},
			{Name: "create_" + e.name, Title: "Create " + noun, RawInputSchema: json.RawMessage(props(false, true)),
				Description: "Creates a " + e.name + " and returns it as stored. " + e.desc},
			{Name: "update_" + e.name, Title: "Update " + noun, RawInputSchema: json.RawMessage(props(true, true)),
				Description: "Changes the fields given of one " + e.name + "; the others stay. " + e.desc},
			{Name: "delete_" + e.name, Title: "Delete " + noun, RawInputSchema: json.RawMessage(props(true, false)),
				Description: "Deletes one " + e.name + " and returns it as it was. " + e.desc},
		}
		for _, tl := range tools {
			tl.Groups = []string{e.plural}
			srv.AddTool(tl, ok)
		}
	}
	return srv
}

// listTokens returns the tokens (bytes / 4) of every page of tools/list.
func listTokens(t *testing.T, srv *ferry.Server) int {
	t.Helper()
	c := ferrytest.NewClient(t, srv, nil)
	n := 0
	for _, tl := range c.ListTools(t.Context()) {
		b, err := json.Marshal(tl)
		if err != nil {
			t.Fatal(err)
		}
		n += len(b)
	}
	return n / 4
}
