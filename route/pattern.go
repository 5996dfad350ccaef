package route

import (
	"errors"
	"fmt"
	"go/token"
	"slices"
	"strings"
)

// pattern is a parsed route: "POST /orders/{id}/cancel".
type pattern struct {
	text   string // as given
	method string
	path   string // the path part, Options.Prefix included
	segs   []segment
	// slash says the path ends in "/" after its last segment: "/files/"
	// (a subtree) or "/files/{$}" (exactly that path).
	slash bool
	// dollar says the path ends in {$}.
	dollar bool
}

// segment is one segment of a route's path: a literal or a wildcard.
type segment struct {
	lit   string // the literal, when wild is empty; it needs no escaping
	wild  string // the wildcard's name
	multi bool   // {name...}
}

// methods are the HTTP methods a route-bound tool may use.
var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"}

// parsePattern reads "METHOD /path" in the syntax of [net/http.ServeMux],
// with prefix put before the path. A host, a method other than those of
// [methods], and anything ServeMux would refuse are errors.
func parsePattern(text, prefix string) (*pattern, error) {
	method, path, ok := strings.Cut(text, " ")
	if !ok || method == "" {
		return nil, errors.New("a route is a method and a path, such as \"POST /orders/{id}/cancel\"")
	}
	if !isMethod(method) {
		return nil, fmt.Errorf("method %q: a route-bound tool uses one of %s", method, strings.Join(methods, ", "))
	}
	path = strings.TrimLeft(path, " \t")
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("path %q: it must start with \"/\" (a host is not allowed)", path)
	}
	path = prefix + path
	p := &pattern{text: text, method: method, path: path}
	if err := p.parseSegments(path); err != nil {
		return nil, err
	}
	return p, nil
}

func isMethod(m string) bool { return slices.Contains(methods, m) }

// parseSegments fills p.segs from path, which starts with "/".
func (p *pattern) parseSegments(path string) error {
	rest := path[1:]
	seen := map[string]bool{}
	for rest != "" {
		seg, tail, more := strings.Cut(rest, "/")
		rest = tail
		if p.dollar || (len(p.segs) > 0 && p.segs[len(p.segs)-1].multi) {
			return fmt.Errorf("path %q: {$} and {name...} must come last", path)
		}
		if !more && seg == "" {
			break
		}
		if seg == "" {
			return fmt.Errorf("path %q: empty segment", path)
		}
		if seg == "{$}" {
			if more {
				return fmt.Errorf("path %q: {$} must come last", path)
			}
			p.dollar, p.slash = true, true
			break
		}
		s, err := parseSegment(path, seg)
		if err != nil {
			return err
		}
		if s.wild != "" {
			if seen[s.wild] {
				return fmt.Errorf("path %q: wildcard {%s} appears twice", path, s.wild)
			}
			seen[s.wild] = true
		}
		p.segs = append(p.segs, s)
		if !more {
			return nil
		}
		if rest == "" {
			p.slash = true
		}
	}
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		p.slash = true
	}
	if n := len(p.segs); n > 0 && p.segs[n-1].multi && p.slash {
		return fmt.Errorf("path %q: nothing may follow {%s...}", path, p.segs[n-1].wild)
	}
	return nil
}

// parseSegment reads one non-empty segment.
func parseSegment(path, seg string) (segment, error) {
	if !strings.ContainsAny(seg, "{}") {
		if seg == "." || seg == ".." || escapeSegment(seg) != seg {
			return segment{}, fmt.Errorf("path %q: segment %q is not a plain literal: write it as it travels, without characters to escape", path, seg)
		}
		return segment{lit: seg}, nil
	}
	if seg[0] != '{' || seg[len(seg)-1] != '}' {
		return segment{}, fmt.Errorf("path %q: a wildcard must be a whole segment, not %q", path, seg)
	}
	name := seg[1 : len(seg)-1]
	name, multi := strings.CutSuffix(name, "...")
	if !token.IsIdentifier(name) {
		return segment{}, fmt.Errorf("path %q: wildcard {%s} is not a Go identifier", path, name)
	}
	return segment{wild: name, multi: multi}, nil
}

// escapeSegment returns s escaped as one path segment, as
// [net/url.PathEscape] does.
func escapeSegment(s string) string {
	return string(appendEscaped(nil, s, false))
}

// appendEscaped appends s percent-encoded to b: as a path segment
// ([net/url.PathEscape]), or as a query component when query is set
// ([net/url.QueryEscape]).
func appendEscaped[S ~string | ~[]byte](b []byte, s S, query bool) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~':
			b = append(b, c)
		case !query && (c == '$' || c == '&' || c == '+' || c == ':' || c == '=' || c == '@'):
			b = append(b, c)
		case query && c == ' ':
			b = append(b, '+')
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return b
}

// sample returns a path that p matches, with placeholder for every
// wildcard, for the start-up check.
func (p *pattern) sample(placeholder string) string {
	var b strings.Builder
	for _, s := range p.segs {
		b.WriteByte('/')
		if s.wild != "" {
			b.WriteString(placeholder)
		} else {
			b.WriteString(s.lit)
		}
	}
	if p.slash || len(p.segs) == 0 {
		b.WriteByte('/')
	}
	return b.String()
}
