package ferry

import "strings"

// This file holds the everyday verb phrases of discovery mode's search: a
// task says "get rid of the order" or "call the meeting off" where a tool
// says delete. A phrase is a verb and its particle, the particle right
// after the verb or a few words later ("take him out"); the verb stands
// for the operation and the particle goes. Only a query's words are read
// this way: tools describe themselves plainly.

// verbPhrase is an everyday verb phrase: the verb, the words that follow it
// (at once, if next; else within maxPhraseGap words) and the operation the
// phrase means, one of the operations' words of [synonyms].
type verbPhrase struct {
	verb  string
	after []string
	next  bool
	op    string
}

// maxPhraseGap is how many words may stand between a verb and its
// particle ("take the old teapot off").
const maxPhraseGap = 4

// verbPhrases is the table, by meaning. Single words with the same
// meanings ("kill", "revoke") are in [synonyms].
var verbPhrases = []verbPhrase{
	// delete
	{verb: "get", after: []string{"rid", "of"}, next: true, op: "delete"},
	{verb: "take", after: []string{"off"}, op: "delete"},
	{verb: "take", after: []string{"out"}, op: "delete"},
	{verb: "take", after: []string{"away"}, op: "delete"},
	{verb: "throw", after: []string{"away"}, op: "delete"},
	{verb: "throw", after: []string{"out"}, op: "delete"},
	{verb: "call", after: []string{"off"}, op: "delete"},
	{verb: "let", after: []string{"go"}, op: "delete"},
	{verb: "wipe", after: []string{"out"}, op: "delete"},
	{verb: "clear", after: []string{"out"}, op: "delete"},
	{verb: "cross", after: []string{"off"}, op: "delete"},
	{verb: "strike", after: []string{"off"}, op: "delete"},
	// create
	{verb: "set", after: []string{"up"}, op: "create"},
	{verb: "sign", after: []string{"up"}, op: "create"},
	{verb: "write", after: []string{"down"}, op: "create"},
	{verb: "note", after: []string{"down"}, op: "create"},
	{verb: "draw", after: []string{"up"}, op: "create"},
	{verb: "put", after: []string{"in"}, op: "create"},
	{verb: "book", after: []string{"in"}, op: "create"},
	// get
	{verb: "look", after: []string{"up"}, op: "get"},
	{verb: "pull", after: []string{"up"}, op: "get"},
	{verb: "bring", after: []string{"up"}, op: "get"},
	{verb: "dig", after: []string{"up"}, op: "get"},
	// update
	{verb: "tick", after: []string{"off"}, op: "update"},
	{verb: "fill", after: []string{"in"}, op: "update"},
	{verb: "sign", after: []string{"off"}, op: "update"},
	{verb: "turn", after: []string{"on"}, op: "update"},
	{verb: "turn", after: []string{"off"}, op: "update"},
	{verb: "switch", after: []string{"on"}, op: "update"},
	{verb: "switch", after: []string{"off"}, op: "update"},
	{verb: "bump", after: []string{"up"}, op: "update"},
	{verb: "push", after: []string{"back"}, op: "update"},
	{verb: "put", after: []string{"off"}, op: "update"},
	{verb: "swap", after: []string{"out"}, op: "update"},
}

// phraseVerbs maps every form of the table's verbs ("takes", "took",
// "taken", "taking") to the verb.
var phraseVerbs = func() map[string]string {
	m := map[string]string{}
	for _, p := range verbPhrases {
		v := p.verb
		forms := []string{v, v + "s", v + "ed", v + "ing", v + v[len(v)-1:] + "ing", v + v[len(v)-1:] + "ed"}
		if strings.HasSuffix(v, "e") {
			forms = append(forms, v+"d", v[:len(v)-1]+"ing")
		}
		for w, base := range irregular {
			if base == v {
				forms = append(forms, w)
			}
		}
		for _, f := range forms {
			m[f] = v
		}
	}
	// Past forms of the table's verbs that the irregular table leaves out
	// (it would read "got" as the get operation everywhere).
	for w, v := range map[string]string{"got": "get", "gotten": "get", "threw": "throw", "thrown": "throw", "struck": "strike", "drew": "draw", "drawn": "draw"} {
		m[w] = v
	}
	return m
}()

// rewritePhrases replaces, in words (lower case, in order), each verb
// phrase's verb by its operation's word and drops its particles.
func rewritePhrases(words []string) []string {
	for i := 0; i < len(words); i++ {
		v, ok := phraseVerbs[words[i]]
		if !ok {
			continue
		}
		for _, p := range verbPhrases {
			if p.verb != v {
				continue
			}
			if at := phraseAt(words, i+1, p); at > 0 {
				words[i] = p.op
				words = append(words[:at], words[at+len(p.after):]...)
				break
			}
		}
	}
	return words
}

// phraseAt returns where p's particles follow its verb at from, or 0.
func phraseAt(words []string, from int, p verbPhrase) int {
	last := from + maxPhraseGap
	if p.next {
		last = from
	}
	for at := from; at <= last && at+len(p.after) <= len(words); at++ {
		match := true
		for j, a := range p.after {
			if words[at+j] != a {
				match = false
				break
			}
		}
		if match {
			return at
		}
	}
	return 0
}

// operations are the operations' words of [synonyms].
var operations = map[string]bool{
	"create": true, "delete": true, "update": true, "get": true, "list": true, "search": true, "count": true,
}

// determiners are the words after which a word is a noun.
var determiners = map[string]bool{
	"a": true, "an": true, "the": true, "this": true, "that": true, "these": true, "those": true, "my": true,
	"our": true, "your": true, "their": true, "his": true, "her": true, "its": true, "every": true, "each": true,
	"another": true, "any": true, "no": true,
}

// reading is how a field's words are read: whether a word that can say an
// operation ("book", "record", "log", "set", "number") says one.
type reading int

const (
	// readText reads a description: such a word is both itself and the
	// operation, unless a determiner makes it a noun.
	readText reading = iota
	// readName reads a name or title ("create_book", "fuel_log"): its
	// first word may say the operation, the others are nouns.
	readName
	// readNouns reads group and argument names: nouns.
	readNouns
)

// formsAs returns the forms of t, the i-th word of a field read as how.
func (t term) formsAs(how reading, i int) []string {
	if !operations[t.canon] || t.base == t.canon {
		return t.forms()
	}
	switch {
	case how == readNouns, how == readName && i > 0:
		return []string{t.base}
	case how == readText:
		return []string{t.base, t.canon}
	}
	return []string{t.canon}
}

// undone are the stems of verbs that make something one undoes with
// "un": "unsubscribe" is to delete a subscription, "unregister" a
// registration.
var undone = []string{"subscrib", "regist", "enrol", "assign", "link", "follow", "publish"}

// readQuery returns the terms of a query: its verb phrases read as their
// operations (see [verbPhrases]), an undoing verb ("unsubscribe") as
// delete and what it undoes, and a question about a record it names by
// number ("what is in order 1009") as a get, not a list.
func readQuery(query string) []term {
	raw := rewritePhrases(splitWords(query))
	for i := 0; i < len(raw); i++ {
		if w, ok := strings.CutPrefix(raw[i], "un"); ok {
			for _, u := range undone {
				if strings.HasPrefix(w, u) {
					raw = append(raw[:i], append([]string{"delete", w}, raw[i+1:]...)...)
					i++
					break
				}
			}
		}
	}
	terms := stemWords(raw)
	if namesRecord(raw) {
		for i, t := range terms {
			if t.canon == "list" && questions[t.base] {
				terms[i].canon = "get"
			}
		}
	}
	return terms
}

// questions are the question words that ask for a list ([synonyms]).
var questions = map[string]bool{"what": true, "which": true, "who": true, "when": true}

// namesRecord reports whether words name one record by number: a number
// right after a word that is not a preposition ("order 1009", "id 42",
// not "over 100").
func namesRecord(words []string) bool {
	for i := 1; i < len(words); i++ {
		prev := words[i-1]
		if isNumber(words[i]) && !isNumber(prev) && !stopWords[prev] && !determiners[prev] && !notNaming[prev] {
			return true
		}
	}
	return false
}

// notNaming are words before a number that compare or count rather than
// name a record.
var notNaming = map[string]bool{
	"over": true, "under": true, "above": true, "below": true, "than": true, "after": true, "before": true,
	"since": true, "until": true, "around": true, "last": true, "next": true, "top": true, "first": true,
	"about": true, "least": true, "most": true, "only": true, "exactly": true,
}

func isNumber(w string) bool {
	for i := range len(w) {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w != ""
}
