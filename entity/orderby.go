package entity

import (
	"fmt"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// orderTerm is one field of an orderBy argument.
type orderTerm struct {
	f    *Field
	desc bool
}

// parseOrder reads an orderBy argument, "cost desc, name": sortable
// fields by their exact names, each optionally followed by asc or desc
// (in any case), separated by commas, none twice. Anything else is
// refused with the sortable fields listed.
func (t *table) parseOrder(s string) ([]orderTerm, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var terms []orderTerm
	seen := map[*Field]bool{}
	for part := range strings.SplitSeq(s, ",") {
		words := strings.Fields(part)
		if len(words) == 0 || len(words) > 2 {
			return nil, t.orderError(fmt.Sprintf("%q is not a field optionally followed by asc or desc", strings.TrimSpace(part)))
		}
		f := t.e.Field(words[0])
		if f == nil || !f.Sortable {
			return nil, t.orderError(fmt.Sprintf("%q is not a sortable field", clip(words[0], 40)))
		}
		if seen[f] {
			return nil, t.orderError(fmt.Sprintf("%s is given twice", f.Name))
		}
		seen[f] = true
		term := orderTerm{f: f}
		if len(words) == 2 {
			switch strings.ToLower(words[1]) {
			case "asc":
			case "desc":
				term.desc = true
			default:
				return nil, t.orderError(fmt.Sprintf("%q after %s is neither asc nor desc", clip(words[1], 20), f.Name))
			}
		}
		terms = append(terms, term)
	}
	return terms, nil
}

func (t *table) orderError(problem string) error {
	return &fieldError{code: ferry.RefusalInvalid, path: "orderBy",
		msg: "orderBy: " + problem + "; sortable fields: " + t.fieldList(func(f *Field) bool { return f.Sortable })}
}

// orderSQL writes the ORDER BY clause: the terms given, then the
// search's rank (best first), then the key (or every field, for an entity
// with no key) so that pages never overlap.
func (t *table) orderSQL(terms []orderTerm, rank string) string {
	if len(terms) == 0 && rank == "" {
		return t.order
	}
	var parts []string
	keyed := false
	for _, o := range terms {
		parts = append(parts, t.orderBy(o))
		keyed = keyed || o.f == t.key
	}
	switch {
	case keyed:
		// The key decides every tie: a rank after it would change
		// nothing, but its values are bound, so it stays, last.
		if rank != "" {
			parts = append(parts, rank)
		}
	case rank != "":
		parts = append(parts, rank)
		fallthrough
	default:
		parts = append(parts, t.ties...)
	}
	return " ORDER BY " + strings.Join(parts, ", ")
}

// initOrder writes, once, the tiebreak and the ORDER BY clause of a list
// with neither orderBy nor search.
func (t *table) initOrder() {
	t.ties = t.tiebreak()
	t.order = " ORDER BY " + strings.Join(t.ties, ", ")
}

// tiebreak orders rows that tie on everything else: by key, or by every
// field for an entity with no key.
func (t *table) tiebreak() []string {
	if t.key != nil {
		return []string{t.orderBy(orderTerm{f: t.key})}
	}
	parts := make([]string, len(t.e.Fields))
	for i, f := range t.e.Fields {
		parts[i] = t.orderBy(orderTerm{f: f})
	}
	return parts
}

func (t *table) orderBy(o orderTerm) string {
	col := t.col(o.f)
	if o.f.Type == Text {
		col = t.d.textOrder(col)
	}
	return t.d.nullsOrder(col, o.desc, o.f.Nullable)
}

// clip shortens s for a sentence.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}
