package entity

import (
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
)

// MaxToolName is the longest tool name entity tools get, in bytes. The
// protocol allows 128, but several clients refuse names over 64, so a
// longer one is shortened by [toolName].
const MaxToolName = 64

// snake turns a table, type or column name into a name fragment of
// [a-z0-9_]: "OrderItems" and "order items" become "order_items",
// "1st-quarter" becomes "1st_quarter", "HTTPServer" becomes "http_server".
// Common accented Latin letters lose their accent ("Größe" becomes
// "groesse"); any other letter or digit outside ASCII becomes u and its
// code point in hex ("商品" becomes "u5546_u54c1"), so distinct names stay
// distinct. It never returns "" (a name with no letter or digit becomes
// "unnamed"); the result may start with a digit, which a tool name, always
// led by a verb, allows.
func snake(s string) string {
	var words []string
	var word []rune
	flush := func() {
		if len(word) > 0 {
			words = append(words, string(word))
			word = word[:0]
		}
	}
	runes := []rune(s)
	for i, r := range runes {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && i > 0 && wordBreak(runes, i) {
				flush()
			}
			word = append(word, unicode.ToLower(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if t, ok := latin[unicode.ToLower(r)]; ok {
				if unicode.IsUpper(r) && i > 0 && wordBreak(runes, i) {
					flush()
				}
				word = append(word, []rune(t)...)
				continue
			}
			flush()
			words = append(words, fmt.Sprintf("u%x", r))
		default:
			flush()
		}
	}
	flush()
	if len(words) == 0 {
		return "unnamed"
	}
	return strings.Join(words, "_")
}

// wordBreak reports whether the upper-case letter at runes[i] starts a
// new word: after a lower-case letter or a digit ("orderItems",
// "base64Text"), or as the last capital of an initialism followed by a
// lower-case letter ("HTTPServer"), unless that letter is a plural s
// ("UserIDs").
func wordBreak(runes []rune, i int) bool {
	prev := runes[i-1]
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	if !unicode.IsUpper(prev) || i+1 >= len(runes) || !unicode.IsLower(runes[i+1]) {
		return false
	}
	// "IDs" is the plural of an initialism, not I and Ds.
	pluralS := runes[i+1] == 's' && (i+2 == len(runes) || !unicode.IsLower(runes[i+2]))
	return !pluralS
}

// latin spells common accented Latin letters in ASCII.
var latin = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "ae", 'å': "a", 'æ': "ae",
	'ç': "c", 'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ì': "i", 'í': "i",
	'î': "i", 'ï': "i", 'ñ': "n", 'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o",
	'ö': "oe", 'ø': "o", 'ù': "u", 'ú': "u", 'û': "u", 'ü': "ue", 'ý': "y",
	'ÿ': "y", 'ß': "ss", 'œ': "oe", 'ł': "l", 'č': "c", 'š': "s", 'ž': "z",
	'ř': "r", 'ě': "e", 'ő': "o", 'ű': "u", 'ğ': "g", 'ş': "s", 'ı': "i",
}

// entityNames gives the singular and plural entity names for a table or
// type name: "products" and "Product" both give "product" and
// "products", "order items" gives "order_item" and "order_items".
func entityNames(table string) (one, many string) {
	one = singular(snake(table))
	return one, plural(one)
}

// lastWord splits a snake name before its last word: "order_items" gives
// "order_" and "items".
func lastWord(s string) (head, last string) {
	i := strings.LastIndexByte(s, '_')
	return s[:i+1], s[i+1:]
}

// singular returns the singular of a snake name, changing its last word:
// "order_items" gives "order_item", "people" "person", "categories"
// "category". A word already singular, or uncountable ("data",
// "series"), is returned as it is.
func singular(s string) string {
	head, w := lastWord(s)
	return head + singularWord(w)
}

// plural returns the plural of a snake name, changing its last word:
// "order_item" gives "order_items", "person" "people", "box" "boxes",
// "category" "categories", "status" "statuses".
func plural(s string) string {
	head, w := lastWord(s)
	return head + pluralWord(w)
}

func singularWord(w string) string {
	switch {
	case w == "" || uncountable[w]:
		return w
	case irregularSingular[w] != "":
		return irregularSingular[w]
	case irregularPlural[w] != "":
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ves") && fves[w[:len(w)-3]] != "":
		return fves[w[:len(w)-3]]
	case strings.HasSuffix(w, "yses"):
		return w[:len(w)-4] + "ysis"
	case hasAnySuffix(w, "sses", "xes", "zzes", "ches", "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "uses") && len(w) > 4 && !isVowel(w[len(w)-5]):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "oes") && oes[w[:len(w)-2]]:
		return w[:len(w)-2]
	case hasAnySuffix(w, "ss", "us", "is"):
		return w
	case strings.HasSuffix(w, "s") && len(w) > 1:
		return w[:len(w)-1]
	}
	return w
}

func pluralWord(w string) string {
	switch {
	case w == "" || uncountable[w]:
		return w
	case irregularPlural[w] != "":
		return irregularPlural[w]
	case irregularSingular[w] != "":
		return w
	}
	n := len(w)
	switch {
	case n > 1 && w[n-1] == 'y' && !isVowel(w[n-2]):
		return w[:n-1] + "ies"
	case fvesPlural[w] != "":
		return fvesPlural[w]
	case strings.HasSuffix(w, "sis") && n > 4:
		return w[:n-2] + "es"
	case hasAnySuffix(w, "s", "x", "z", "ch", "sh"):
		return w + "es"
	case oes[w]:
		return w + "es"
	}
	return w + "s"
}

func hasAnySuffix(w string, suffixes ...string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

// uncountable words are their own plural.
var uncountable = map[string]bool{
	"data": true, "metadata": true, "information": true, "series": true,
	"species": true, "news": true, "equipment": true, "feedback": true,
	"software": true, "hardware": true, "sheep": true, "fish": true,
	"deer": true, "staff": true, "media": true,
	"analytics": true, "aircraft": true, "moose": true,
	"rice": true, "money": true, "evidence": true, "knowledge": true,
	"luggage": true, "baggage": true, "furniture": true, "advice": true,
	"traffic": true, "research": true, "music": true,
}

// irregularPlural maps a singular word to its plural where the rules get
// it wrong.
var irregularPlural = map[string]string{
	"person": "people", "child": "children", "man": "men", "woman": "women",
	"mouse": "mice", "goose": "geese", "foot": "feet", "tooth": "teeth",
	"ox": "oxen", "criterion": "criteria", "phenomenon": "phenomena",
	"index": "indexes", "matrix": "matrices", "vertex": "vertices",
	"appendix": "appendices", "quiz": "quizzes", "alias": "aliases",
	"gas": "gases", "bias": "biases", "canvas": "canvases", "atlas": "atlases",
	"cache": "caches", "niche": "niches", "ache": "aches",
	"headache": "headaches", "avalanche": "avalanches", "cliche": "cliches",
	"movie": "movies", "cookie": "cookies", "tie": "ties", "pie": "pies",
	"lie": "lies", "zombie": "zombies", "rookie": "rookies",
	"calorie": "calories", "selfie": "selfies", "brownie": "brownies",
	"smoothie": "smoothies", "freebie": "freebies", "goalie": "goalies",
	"prairie": "prairies", "sortie": "sorties", "genie": "genies",
	"axis": "axes", "shoe": "shoes", "toe": "toes", "canoe": "canoes",
	"die": "dice", "corpus": "corpora", "genus": "genera",
}

// irregularSingular is irregularPlural the other way round.
var irregularSingular = func() map[string]string {
	m := make(map[string]string, len(irregularPlural))
	for s, p := range irregularPlural {
		m[p] = s
	}
	return m
}()

// fvesPlural lists the words in -f or -fe whose plural is -ves; fves maps
// the stem before "ves" back to the singular.
var fvesPlural = map[string]string{
	"leaf": "leaves", "knife": "knives", "life": "lives", "wife": "wives",
	"half": "halves", "shelf": "shelves", "wolf": "wolves", "thief": "thieves",
	"loaf": "loaves", "calf": "calves", "elf": "elves", "self": "selves",
}

var fves = func() map[string]string {
	m := make(map[string]string, len(fvesPlural))
	for s, p := range fvesPlural {
		m[strings.TrimSuffix(p, "ves")] = s
	}
	return m
}()

// oes lists the words in -o whose plural is -oes.
var oes = map[string]bool{
	"hero": true, "potato": true, "tomato": true, "echo": true, "veto": true,
	"torpedo": true, "embargo": true,
}

// toolName joins a verb and an entity name into a tool name of at most
// [MaxToolName] bytes: toolName("get", "product") is "get_product". A
// longer name keeps its start and ends in "_" and eight hex digits of a
// hash of the whole name, so the shortening is deterministic and two long
// names that share their start stay apart.
func toolName(verb, name string) string {
	full := verb + "_" + name
	if len(full) <= MaxToolName {
		return full
	}
	h := fnv.New32a()
	h.Write([]byte(full))
	sum := fmt.Sprintf("_%08x", h.Sum32())
	head := strings.TrimRight(full[:MaxToolName-len(sum)], "_")
	return head + sum
}

// uniqueName returns name, or name with the smallest suffix "_2", "_3",
// ... that taken does not hold, and records the result in taken. Callers
// give it names in a deterministic order (tables sorted by name), so the
// same database always gets the same names.
func uniqueName(name string, taken map[string]bool) string {
	n := name
	for i := 2; taken[n]; i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	taken[n] = true
	return n
}
