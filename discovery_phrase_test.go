package ferry

import (
	"slices"
	"testing"
)

func TestSplitWordsHyphens(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"tick off the to-do":   {"tick", "off", "the", "to", "do", "todo"},
		"e-mail a follow-up.":  {"e", "mail", "email", "a", "follow", "up", "followup"},
		"listOrders - all":     {"list", "orders", "all"},
		"state-of-the-art now": {"state", "of", "the", "art", "stateoftheart", "now"},
		"trailing-":            {"trailing"},
	} {
		if got := splitWords(text); !slices.Equal(got, want) {
			t.Errorf("splitWords(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestRewritePhrases(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"get rid of the order":             {"delete", "the", "order"},
		"call off the meeting":             {"delete", "the", "meeting"},
		"call the meeting off":             {"delete", "the", "meeting"},
		"we took the old teapot off":       {"we", "delete", "the", "old", "teapot"},
		"set up a call":                    {"create", "a", "call"},
		"pulled up the file":               {"get", "the", "file"},
		"call the supplier":                {"call", "the", "supplier"},                            // no particle
		"take one two three four five off": {"take", "one", "two", "three", "four", "five", "off"}, // too far
		"get the order rid of":             {"get", "the", "order", "rid", "of"},                   // get rid of is one piece
	} {
		if got := rewritePhrases(splitWords(text)); !slices.Equal(got, want) {
			t.Errorf("rewritePhrases(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestReadQuery(t *testing.T) {
	t.Parallel()
	keys := func(q string) []string {
		var out []string
		for _, t := range readQuery(q) {
			out = append(out, t.key())
		}
		return out
	}
	for q, want := range map[string][]string{
		"unsubscribe jane from the newsletter": {"delete", "subscrib", "jane", "newsletter"},
		"what is in order 1009":                {"get", "order", "1009"},
		"what orders are over 100":             {"list", "order", "over", "100"},
		"book a table":                         {"create", "tabl"},
		"lend a book":                          {"loan", "book"}, // a book: a noun, not the operation
		"staff records":                        {"employe", "create"},
		"tomorrow's standup":                   {"tomorrow", "standup"}, // one letter says nothing
	} {
		if got := keys(q); !slices.Equal(got, want) {
			t.Errorf("readQuery(%q) = %q, want %q", q, got, want)
		}
	}
}

// A name's first word may say the operation; its others, and argument
// names, are nouns; a description's word is both (and an operation in
// its pairs), unless a determiner makes it a noun.
func TestSearchDocReadings(t *testing.T) {
	t.Parallel()
	d := newSearchDoc(&Tool{Name: "create_book", Description: "Books a room."},
		[]byte(`{"properties":{"number":{"description":"The record's number."}}}`), []string{"books"})
	for w, want := range map[string]float64{"create": weightName, "book": weightName, "number": weightArgName, "count": weightArgDesc, "room": weightDesc} {
		if got := d.words[w]; got != want {
			t.Errorf("weight of %q = %v, want %v", w, got, want)
		}
	}
	if d.pairs["create room"] != weightDesc || d.pairs["create book"] != weightName || len(d.pairs) != 3 {
		t.Errorf("pairs %v", d.pairs)
	}
}
