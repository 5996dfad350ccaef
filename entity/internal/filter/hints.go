package filter

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxListedFields bounds the field list of a refusal.
const maxListedFields = 40

// listFields writes "cost (number), name (text or null)", at most
// maxListedFields of them.
func listFields(fields []Field) string {
	var b strings.Builder
	for i, f := range fields {
		if i == maxListedFields {
			fmt.Fprintf(&b, " and %d more", len(fields)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + " (" + f.TypeName())
		if f.Nullable && f.Type != JSON {
			b.WriteString(" or null")
		}
		b.WriteString(")")
	}
	return b.String()
}

// habits returns hints for the SQL and other habits expr shows outside
// its string literals: =, <>, AND, LIKE, IS NULL, single & and |.
func habits(expr string) string {
	words, ops := scan(expr)
	var hints []string
	if words["LIKE"] || words["ILIKE"] {
		hints = append(hints, `instead of LIKE write name.contains("x"), name.startsWith("x") or name.endsWith("x")`)
	}
	if words["IS"] {
		hints = append(hints, "instead of IS NULL write == null, and != null for IS NOT NULL")
	}
	if words["AND"] || words["OR"] || (words["NOT"] && !words["IS"]) {
		hints = append(hints, "write && for AND, || for OR and ! for NOT")
	}
	if words["BETWEEN"] {
		hints = append(hints, "instead of BETWEEN write x >= 1 && x <= 5")
	}
	if ops["<>"] {
		hints = append(hints, "write != for <>")
	}
	if ops["in("] {
		hints = append(hints, `write the list of in in square brackets: status in ["new", "open"]`)
	}
	if ops["''"] {
		hints = append(hints, `inside quotes write \' for a quote, or quote with the other kind: "it's"`)
	}
	if ops["="] {
		hints = append(hints, "compare with ==, not =")
	}
	if ops["&"] || ops["|"] {
		hints = append(hints, "write && and || doubled")
	}
	return strings.Join(hints, "; ")
}

// scan collects the upper-cased words and the operator habits of expr
// outside its quoted strings.
func scan(expr string) (words, ops map[string]bool) {
	words, ops = map[string]bool{}, map[string]bool{}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'':
			i = skipString(expr, i)
			if i < len(expr) && expr[i] == c && expr[i-1] == c {
				ops["''"] = true // SQL's doubled quote
			}
		case isWordByte(c):
			j := i
			for j < len(expr) && isWordByte(expr[j]) {
				j++
			}
			if j-i <= 8 {
				words[strings.ToUpper(expr[i:j])] = true
			}
			if strings.EqualFold(expr[i:j], "in") && strings.HasPrefix(strings.TrimLeft(expr[j:], " \t\n"), "(") {
				ops["in("] = true
			}
			i = j
		default:
			scanOperator(expr, i, ops)
			i++
		}
	}
	return words, ops
}

// scanOperator notes a single =, a <> and a single & or | at expr[i].
func scanOperator(expr string, i int, ops map[string]bool) {
	prev, next := byte(0), byte(0)
	if i > 0 {
		prev = expr[i-1]
	}
	if i+1 < len(expr) {
		next = expr[i+1]
	}
	switch c := expr[i]; c {
	case '=':
		if next != '=' && !strings.ContainsRune("=!<>", rune(prev)) {
			ops["="] = true
		}
	case '<':
		if next == '>' {
			ops["<>"] = true
		}
	case '&', '|':
		if next != c && prev != c {
			ops[string(c)] = true
		}
	}
}

// shape refuses, before parsing, an expression nested deeper than
// MaxDepth or with a list longer than MaxListItems: checking such a list
// costs cel-go far more than its length suggests.
func (e *Env) shape(expr string) error {
	var commas []int // per open bracket, the commas of a list or -1
	for i := 0; i < len(expr); i++ {
		switch c := expr[i]; c {
		case '"', '\'':
			i = skipString(expr, i) - 1
		case '(', '[', '{':
			if len(commas) == e.limits.MaxDepth {
				return e.refusal(fmt.Sprintf("the filter nests deeper than %d levels", e.limits.MaxDepth), "", utf8.RuneCountInString(expr[:i])+1)
			}
			n := -1
			if c == '[' {
				n = 0
			}
			commas = append(commas, n)
		case ')', ']', '}':
			if len(commas) > 0 {
				commas = commas[:len(commas)-1]
			}
		case ',':
			if k := len(commas) - 1; k >= 0 && commas[k] >= 0 {
				commas[k]++
				if commas[k] > e.limits.MaxListItems {
					return e.refusal(fmt.Sprintf("the filter has a list of more than %d items", e.limits.MaxListItems),
						"split the filter or narrow it", utf8.RuneCountInString(expr[:i])+1)
				}
			}
		}
	}
	return nil
}

// skipString returns the index after the string literal starting at i,
// with its backslash escapes (unless raw: r"...") and triple quotes.
func skipString(expr string, i int) int {
	raw := i > 0 && (expr[i-1] == 'r' || expr[i-1] == 'R') &&
		(i == 1 || !isWordByte(expr[i-2]) || expr[i-2] == 'b' || expr[i-2] == 'B')
	quote := expr[i : i+1]
	if triple := strings.Repeat(quote, 3); strings.HasPrefix(expr[i:], triple) {
		quote = triple
	}
	for j := i + len(quote); j < len(expr); j++ {
		switch {
		case expr[j] == '\\' && !raw:
			j++
		case strings.HasPrefix(expr[j:], quote):
			return j + len(quote)
		}
	}
	return len(expr)
}

func isWordByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// distance is the Levenshtein distance of a and b, or limit when it is
// at least limit.
func distance(a, b string, limit int) int {
	if len(a) > 64 || len(b) > 64 {
		return limit
	}
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit)
}
