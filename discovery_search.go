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

// searchDoc is a tool's words for the search, held in its entry (not
// behind a pointer: the search reads every tool's).
type searchDoc = toolWords

// toolWords are a tool's words and its pairs of words in a row ("support
// request"), each with the weight of the best field it appears in.
type toolWords struct {
	words map[string]float64
	pairs map[string]float64
}

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
	d := toolWords{words: map[string]float64{}, pairs: map[string]float64{}}
	d.add(t.Name, weightName, readName)
	d.add(t.Title, weightTitle, readName)
	d.add(strings.Join(groups, " "), weightGroup, readNouns)
	d.add(t.Description, weightDesc, readText)
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(in, &schema) == nil {
		for name, p := range schema.Properties {
			d.add(name, weightArgName, readNouns)
			d.add(p.Description, weightArgDesc, readText)
		}
	}
	return d
}

func (d *toolWords) add(text string, w float64, how reading) {
	prev := ""
	for i, t := range searchWords(text) {
		forms := t.formsAs(how, i)
		for _, word := range forms {
			put(d.words, word, w)
		}
		// A pair is of the words as read: the operation where a word says one.
		if word := forms[len(forms)-1]; how != readNouns {
			if prev != "" {
				put(d.pairs, prev+" "+word, w)
			}
			prev = word
		}
	}
}

func put(m map[string]float64, word string, w float64) {
	if m[word] < w {
		m[word] = w
	}
}

// pair is the key of two words in a row ("support request"), which a
// query's same two words in a row match at pairWeight of its field's
// weight, on top of the words themselves.
func pair(a, b term) string { return a.key() + " " + b.key() }

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

// searchWords splits text into lower-case terms (see [splitWords]),
// without the words that say nothing.
func searchWords(text string) []term {
	return stemWords(splitWords(text))
}

// stemWords returns the terms of words, without the words that say
// nothing.
// A word of an operation right after a determiner is read as a noun ("a
// book", "the record"): its stem, without the operation.
func stemWords(raw []string) []term {
	var words []term
	for i, w := range raw {
		if stopWords[w] || len(w) == 1 && (w[0] < '0' || w[0] > '9') {
			continue
		}
		if t := stem(w); t.base != "" && !stopWords[t.base] {
			if operations[t.canon] && i > 0 && determiners[raw[i-1]] {
				t.canon = ""
			}
			words = append(words, t)
		}
	}
	return words
}

// splitWords splits text into lower-case words: at every character that
// is not a letter or digit, and between a lower-case letter and an upper-
// case one (camelCase). Words joined by a hyphen are also one word
// ("to-do" is "to", "do" and "todo"; "e-mail" also "email").
func splitWords(text string) []string {
	var words []string
	start, compound := -1, -1
	flush := func(end int) {
		if start >= 0 {
			words = append(words, strings.ToLower(text[start:end]))
			start = -1
		}
	}
	for i := range len(text) {
		c := text[i]
		switch alnum := isAlnum(c); {
		case !alnum:
			if start >= 0 && c == '-' && i+1 < len(text) && isAlnum(text[i+1]) {
				if compound < 0 {
					compound = start
				}
			} else if compound >= 0 {
				flush(i)
				words = append(words, strings.ToLower(strings.ReplaceAll(text[compound:i], "-", "")))
				compound = -1
				continue
			}
			flush(i)
		case start < 0:
			start = i
		case c >= 'A' && c <= 'Z' && text[i-1] >= 'a' && text[i-1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(text))
	if compound >= 0 {
		words = append(words, strings.ToLower(strings.ReplaceAll(text[compound:], "-", "")))
	}
	return words
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
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
		return synonym(w, s)
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
		if suffix == "es" && !strings.HasSuffix(c, "s") && !strings.HasSuffix(c, "x") && !strings.HasSuffix(c, "z") &&
			!strings.HasSuffix(c, "ch") && !strings.HasSuffix(c, "sh") {
			continue // "notes" is "note" and "s", not "not" and "es"
		}
		for _, cand := range []string{c, c + "e"} {
			if s, ok := synonyms[cand]; ok {
				return synonym(cand, s)
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

// synonym returns the term of w, whose synonyms share s. A word of an
// operation keeps its own stem too (see [term.formsAs]); another word is
// its synonyms' word, stemmed as that word is ("bill" is "invoic", as
// "invoices" is).
func synonym(w, s string) term {
	if operations[s] {
		return term{base: w, canon: s}
	}
	return term{base: stem(s).base}
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
	"kill": "delete", "revoke": "delete", "scrap": "delete", "discard": "delete", "trash": "delete", "ditch": "delete",
	"terminate": "delete", "void": "delete",
	"bump": "update", "adjust": "update", "amend": "update", "postpone": "update", "reschedule": "update",
	"launch": "create",
	"edit":   "update", "change": "update", "modify": "update", "set": "update", "rename": "update", "patch": "update",
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
	"he": true, "she": true, "him": true, "her": true, "his": true, "your": true, "so": true, "just": true, "about": true,
	"don": true, "doesn": true, "isn": true, "won": true, "anymore": true, "should": true, "could": true, "now": true,
}

// searchIndex counts in how many tools each word appears, for the
// catalog as it was at gen.
type searchIndex struct {
	mu    sync.Mutex // guards the fields below
	gen   uint64
	n     int
	df    map[string]int
	vocab []string // the words of df, sorted
	pairs map[string][]pairPosting
	done  bool
}

// pairPosting is a tool that has a pair of words: its index in the
// registry's sorted tools, and the pair's weight there.
type pairPosting struct {
	i int
	w float64
}

// load counts the catalog of reg again if it changed since the last
// count, and returns the counts and the words. The caller holds s.mu's
// read lock.
func (x *searchIndex) load(reg *registry[*toolEntry]) (df map[string]int, vocab []string, pairs map[string][]pairPosting, n float64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.done || x.gen != reg.gen {
		x.df, x.pairs = map[string]int{}, map[string][]pairPosting{}
		for i, e := range reg.sorted {
			for w := range e.doc.words {
				x.df[w]++
			}
			for p, w := range e.doc.pairs {
				x.pairs[p] = append(x.pairs[p], pairPosting{i, w})
			}
		}
		x.vocab = slices.Sorted(maps.Keys(x.df))
		x.gen, x.n, x.done = reg.gen, len(reg.sorted), true
	}
	return x.df, x.vocab, x.pairs, float64(x.n)
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
	pairWeight   = 0.5
)

// queryWord is one word of a query: the forms that match it, each with
// its weight (rarity, and prefixWeight for a form found by prefix).
type queryWord struct {
	forms   []string
	weights []float64
}

// queryPair is a query's two words in a row that tools have too: the
// tools, and the pair's weight (rarity and pairWeight).
type queryPair struct {
	tools  []pairPosting
	weight float64
	next   int // the index in tools of the next tool to score
}

// queryWords returns the words of query with their forms, its pairs of
// words in a row that tools have too, and whether it asks to change
// something.
func queryWords(query string, df map[string]int, vocab []string, pairs map[string][]pairPosting, n float64) ([]queryWord, []queryPair, bool) {
	idf := func(df int) float64 { return math.Log(1 + (n+1)/float64(df+1)) }
	var out []queryWord
	var qpairs []queryPair
	seen := map[string]bool{}
	writes := false
	terms := readQuery(query)
	for i, t := range terms {
		if i > 0 {
			if p := pair(terms[i-1], t); len(pairs[p]) > 0 && !seen[p] {
				seen[p] = true
				qpairs = append(qpairs, queryPair{tools: pairs[p], weight: pairWeight * idf(len(pairs[p]))})
			}
		}
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
			q.forms, q.weights = append(q.forms, f), append(q.weights, idf(df[f]))
		}
		if len(t.base) >= minPrefix {
			for _, v := range prefixed(vocab, t.base) {
				if !slices.Contains(q.forms, v) {
					q.forms, q.weights = append(q.forms, v), append(q.weights, prefixWeight*idf(df[v]))
				}
			}
		}
		out = append(out, q)
	}
	return out, qpairs, writes
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
	df, vocab, pairs, n := s.discovery.index.load(&s.tools)
	words, qpairs, writes := queryWords(query, df, vocab, pairs, n)
	if len(words) == 0 {
		return nil
	}
	var hits []searchHit
	for ti, e := range s.tools.sorted {
		score, matched := 0.0, 0
		for _, q := range words {
			best := 0.0
			for i, f := range q.forms {
				if w := e.doc.words[f] * q.weights[i]; w > best {
					best = w
				}
			}
			if best > 0 {
				score += best
				matched++
			}
		}
		for k := range qpairs { // each pair's tools are in the order of s.tools.sorted
			q := &qpairs[k]
			if q.next < len(q.tools) && q.tools[q.next].i == ti {
				score += q.tools[q.next].w * q.weight
				q.next++
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
