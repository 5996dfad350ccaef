package ferry

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// This file holds the search of discovery mode: a ranked search over the
// tools' names, titles, descriptions, groups and arguments, deterministic
// and without a network or a model. Each tool's words are read once, when
// it is registered (see [newSearchDoc]); how rare each word is, is counted
// again when the catalog has changed since the last search.

// searchDoc is a tool's words, each with the weight of the best field it
// appears in.
type searchDoc map[string]float64

// Field weights: a word in the name says most of what a tool is for.
const (
	weightName     = 3
	weightTitle    = 2.5
	weightGroup    = 2
	weightArgName  = 1.5
	weightDesc     = 1
	weightArgDesc  = 0.7
	maxSearchLimit = 20
	defaultResults = 5
)

// newSearchDoc returns the words of tool t, whose input schema as sent
// is in, and whose groups are groups.
func newSearchDoc(t *Tool, in json.RawMessage, groups []string) searchDoc {
	d := searchDoc{}
	d.add(t.Name, weightName)
	d.add(t.Title, weightTitle)
	d.add(strings.Join(groups, " "), weightGroup)
	d.add(t.Description, weightDesc)
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(in, &schema) == nil {
		for name, p := range schema.Properties {
			d.add(name, weightArgName)
			d.add(p.Description, weightArgDesc)
		}
	}
	return d
}

func (d searchDoc) add(text string, w float64) {
	for _, t := range searchWords(text) {
		for _, word := range t.forms() {
			if d[word] < w {
				d[word] = w
			}
		}
	}
}

// term is a word of a text: its stem, and the word its synonyms share
// when it has one ("remove" is "remov" and "delete"). A text's words match
// a query's when either form does.
type term struct{ base, canon string }

// forms returns the term's forms: its stem, and its synonyms' word.
func (t term) forms() []string {
	if t.canon != "" {
		return []string{t.canon}
	}
	return []string{t.base}
}

// key is what tells two terms apart: the synonyms' word, else the stem.
func (t term) key() string {
	if t.canon != "" {
		return t.canon
	}
	return t.base
}

// searchWords splits text into lower-case terms: at every character that
// is not a letter or digit, and between a lower-case letter and an upper-
// case one (camelCase), without the words that say nothing.
func searchWords(text string) []term {
	var words []term
	start := -1
	flush := func(end int) {
		if start >= 0 {
			if w := strings.ToLower(text[start:end]); !stopWords[w] {
				if t := stem(w); t.base != "" && !stopWords[t.base] {
					words = append(words, t)
				}
			}
			start = -1
		}
	}
	for i := range len(text) {
		c := text[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
		switch {
		case !alnum:
			flush(i)
		case start < 0:
			start = i
		case c >= 'A' && c <= 'Z' && text[i-1] >= 'a' && text[i-1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(text))
	return words
}

// stem strips the common English endings, so that "orders", "ordered"
// and "ordering" are one word, undoes the usual irregular forms ("people"
// is "person", "lent" is "lend"), and finds the word the synonyms of the
// result share ("remove" is "delete"), if any.
func stem(w string) term {
	if base, ok := irregular[w]; ok {
		w = base
	}
	if s, ok := synonyms[w]; ok {
		return term{base: w, canon: s}
	}
	stemmed := ""
	for _, suffix := range []string{"ies", "ing", "ed", "es", "s"} {
		if len(w) <= len(suffix)+2 || !strings.HasSuffix(w, suffix) {
			continue
		}
		c := w[:len(w)-len(suffix)]
		if suffix == "ies" {
			c += "y"
		}
		for _, cand := range []string{c, c + "e"} {
			if s, ok := synonyms[cand]; ok {
				return term{base: cand, canon: s}
			}
		}
		if stemmed == "" {
			stemmed = c
		}
	}
	if stemmed == "" {
		stemmed = w
	}
	// A final e goes too, so that "manage" and "manages" meet at "manag".
	if len(stemmed) > 4 && stemmed[len(stemmed)-1] == 'e' {
		stemmed = stemmed[:len(stemmed)-1]
	}
	return term{base: stemmed}
}

// irregular maps the irregular plurals and past forms of words a task
// says to their plain forms, which the endings' rules cannot find.
var irregular = map[string]string{
	"people": "person", "children": "child", "men": "man", "women": "woman", "feet": "foot", "teeth": "tooth",
	"lent": "lend", "sent": "send", "sold": "sell", "bought": "buy", "paid": "pay", "spent": "spend",
	"built": "build", "made": "make", "kept": "keep", "brought": "bring", "wrote": "write", "written": "write",
	"took": "take", "taken": "take", "gave": "give", "given": "give", "chose": "choose", "chosen": "choose",
	"began": "begin", "begun": "begin", "ran": "run", "went": "go", "gone": "go", "held": "hold", "met": "meet",
}

// synonyms maps the words users say for the usual operations, and a few
// common business words, to one. The operations: create, delete, update,
// get, list (a question asks for a list), search, count.
var synonyms = map[string]string{
	"create": "create", "delete": "delete", "update": "update", "get": "get", "list": "list", "search": "search", "count": "count",
	"add": "create", "new": "create", "insert": "create", "make": "create", "register": "create", "open": "create",
	"hire": "create", "log": "create", "send": "create", "reserve": "create", "schedule": "create", "issue": "create",
	"submit": "create", "record": "create", "enter": "create", "store": "create", "save": "create", "book": "create",
	"remove": "delete", "drop": "delete", "erase": "delete", "destroy": "delete", "cancel": "delete", "purge": "delete", "rid": "delete",
	"edit": "update", "change": "update", "modify": "update", "set": "update", "rename": "update", "patch": "update",
	"replace": "update", "fix": "update", "correct": "update", "mark": "update", "raise": "update", "move": "update",
	"show": "get", "fetch": "get", "read": "get", "view": "get", "lookup": "get", "retrieve": "get", "detail": "get", "display": "get",
	"where": "get",
	"find":  "search", "query": "search", "filter": "search",
	"browse": "list", "all": "list", "enumerate": "list", "which": "list", "what": "list", "who": "list", "when": "list",
	"how": "count", "number": "count", "total": "count", "tally": "count",
	"client": "customer", "buyer": "customer", "purchase": "order", "bill": "invoice", "parcel": "shipment",
	"package": "shipment", "vendor": "supplier", "staff": "employee", "worker": "employee", "todo": "task",
	"outage": "incident", "file": "document", "subscription": "license", "deal": "opportunity", "prospect": "lead",
	"reply": "comment", "login": "account", "user": "account", "lend": "loan", "borrow": "loan",
}

var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "for": true, "on": true, "and": true,
	"or": true, "by": true, "with": true, "is": true, "it": true, "its": true, "this": true, "that": true, "me": true,
	"my": true, "i": true, "we": true, "our": true, "from": true, "at": true, "be": true, "are": true, "some": true,
	"please": true, "want": true, "need": true, "can": true, "you": true, "one": true, "do": true, "us": true,
	"as": true, "was": true, "were": true, "been": true, "has": true, "have": true, "had": true, "will": true,
	"would": true, "their": true, "they": true, "them": true, "there": true, "into": true, "up": true, "if": true,
}

// searchIndex counts in how many tools each word appears, for the
// catalog as it was at gen.
type searchIndex struct {
	mu    sync.Mutex // guards the fields below
	gen   uint64
	n     int
	df    map[string]int
	vocab []string // the words of df, sorted
	done  bool
}

// load counts the catalog of reg again if it changed since the last
// count, and returns the counts and the words. The caller holds s.mu's
// read lock.
func (x *searchIndex) load(reg *registry[*toolEntry]) (df map[string]int, vocab []string, n float64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.done || x.gen != reg.gen {
		x.df = map[string]int{}
		for _, e := range reg.sorted {
			for w := range e.doc {
				x.df[w]++
			}
		}
		x.vocab = slices.Sorted(maps.Keys(x.df))
		x.gen, x.n, x.done = reg.gen, len(reg.sorted), true
	}
	return x.df, x.vocab, float64(x.n)
}

// Matching beyond the exact word: a word of at least minPrefix letters
// matches the catalog's words it begins or that begin it ("depart" and
// "departur", "renew" and "renewal"), at prefixWeight of the weight.
// And a task that asks to change nothing (no create, update or delete
// among its words) ranks read-only tools readBoost times higher.
const (
	minPrefix    = 5
	prefixWeight = 0.5
	readBoost    = 1.25
)

// queryWord is one word of a query: the forms that match it, each with
// its weight (rarity, and prefixWeight for a form found by prefix).
type queryWord struct {
	forms   []string
	weights []float64
}

// queryWords returns the words of query with their forms, and whether it
// asks to change something.
func queryWords(query string, df map[string]int, vocab []string, n float64) ([]queryWord, bool) {
	idf := func(w string) float64 { return math.Log(1 + (n+1)/float64(df[w]+1)) }
	var out []queryWord
	seen := map[string]bool{}
	writes := false
	for _, t := range searchWords(query) {
		if seen[t.key()] {
			continue
		}
		seen[t.key()] = true
		switch t.canon {
		case "create", "update", "delete":
			writes = true
		}
		var q queryWord
		for _, f := range t.forms() {
			q.forms, q.weights = append(q.forms, f), append(q.weights, idf(f))
		}
		if len(t.base) >= minPrefix {
			for _, v := range prefixed(vocab, t.base) {
				if !slices.Contains(q.forms, v) {
					q.forms, q.weights = append(q.forms, v), append(q.weights, prefixWeight*idf(v))
				}
			}
		}
		out = append(out, q)
	}
	return out, writes
}

// maxPrefixed bounds the words one query word matches by prefix.
const maxPrefixed = 16

// prefixed returns the words of vocab (sorted) that begin with w, or
// that w begins with, of at least minPrefix letters, other than w.
func prefixed(vocab []string, w string) []string {
	var out []string
	i, _ := slices.BinarySearch(vocab, w)
	for ; i < len(vocab) && strings.HasPrefix(vocab[i], w) && len(out) < maxPrefixed; i++ {
		if vocab[i] != w {
			out = append(out, vocab[i])
		}
	}
	for l := minPrefix; l < len(w); l++ {
		if _, ok := slices.BinarySearch(vocab, w[:l]); ok {
			out = append(out, w[:l])
		}
	}
	return out
}

// searchHit is a tool a search found, with its score.
type searchHit struct {
	e     *toolEntry
	score float64
}

// rankTools returns up to limit tools that match query, best first, of
// those the caller of ctx may see through the endpoint of r.
func (s *Server) rankTools(ctx context.Context, r *request, query string, limit int) []searchHit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	df, vocab, n := s.discovery.index.load(&s.tools)
	words, writes := queryWords(query, df, vocab, n)
	if len(words) == 0 {
		return nil
	}
	var hits []searchHit
	for _, e := range s.tools.sorted {
		score, matched := 0.0, 0
		for _, q := range words {
			best := 0.0
			for i, f := range q.forms {
				if w := e.doc[f] * q.weights[i]; w > best {
					best = w
				}
			}
			if best > 0 {
				score += best
				matched++
			}
		}
		score *= float64(matched) / float64(len(words)) // a tool that matches more of the words ranks higher
		if score == 0 || !r.peer.groups.admits(e.info.Groups) || e.hideable && !s.visibleTool(ctx, &e.info) {
			continue
		}
		if !writes && e.info.ReadOnly {
			score *= readBoost
		}
		hits = append(hits, searchHit{e, score})
	}
	slices.SortFunc(hits, func(a, b searchHit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.e.tool.Name, b.e.tool.Name)
	})
	return hits[:min(limit, len(hits))]
}

// foundTool is a tool as the search tool returns it.
type foundTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	Groups      []string        `json:"groups,omitempty"`
	ReadOnly    bool            `json:"readOnly"`
	Destructive bool            `json:"destructive"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// searchTools is the search tool's handler.
func (s *Server) searchTools(ctx context.Context, req *CallToolRequest) (*ToolResult, error) {
	var in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal(req.Arguments, &in); err != nil || strings.TrimSpace(in.Query) == "" || utf8.RuneCountInString(in.Query) > 500 {
		return NewErrorResult("invalid arguments: query needs the task in a few words (1 to 500 characters)"), nil
	}
	if in.Limit <= 0 {
		in.Limit = defaultResults
	}
	in.Limit = min(in.Limit, maxSearchLimit)
	r := requestFrom(ctx)
	if r == nil {
		return NewErrorResult("search_tools: no request"), nil
	}
	hits := s.rankTools(ctx, r, in.Query, in.Limit)
	out := struct {
		Tools []foundTool `json:"tools"`
	}{Tools: make([]foundTool, len(hits))}
	var text strings.Builder
	for i, h := range hits {
		e := h.e
		out.Tools[i] = foundTool{Name: e.tool.Name, Title: e.tool.Title, Description: e.tool.Description,
			Groups: e.info.Groups, ReadOnly: e.info.ReadOnly, Destructive: e.info.Destructive, InputSchema: e.in}
		text.WriteString(e.tool.Name + ": " + e.tool.Description + "\n")
	}
	if len(hits) == 0 {
		text.WriteString("No tool matches; try other words.")
	}
	return &ToolResult{Content: []Content{Text(text.String())}, StructuredContent: out}, nil
}
