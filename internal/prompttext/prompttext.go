// Package prompttext parses and renders the text of a template prompt:
// {{name}} placeholders for its arguments, and sections whose text
// appears only when an argument is given ({{#name}}...{{/name}}) or only
// when it is not ({{^name}}...{{/name}}), a subset of Mustache.
//
// An argument is given when it has a value that is not empty; a
// placeholder of an argument not given renders as nothing. Sections may
// nest, up to [MaxDepth] deep. A section tag alone on its line (blanks
// around it) takes its line with it, as in Mustache, so that a section can
// hold whole lines. Argument values are inserted as they are: they are
// never read as template text. Anything else between braces ({{}},
// {{ two words }}) is text.
package prompttext

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// MaxDepth is how deeply sections may nest.
const MaxDepth = 32

// maxErrors bounds the problems Parse lists; the rest are counted.
const maxErrors = 10

// tagPattern matches a tag: an optional sigil (# opens a section, ^ an
// inverted one, / closes one) and an argument's name.
var tagPattern = regexp.MustCompile(`\{\{\s*([#^/]?)\s*([A-Za-z0-9_.-]+)\s*\}\}`)

// kind is what a node of a template is.
type kind uint8

const (
	text kind = iota
	value
	given    // a section rendered when its argument is given
	notGiven // a section rendered when its argument is not given
)

// node is a piece of a template: text, a placeholder, or a section with
// the nodes inside it.
type node struct {
	kind  kind
	text  string // the text, or the argument's name
	inner []node
}

// Template is a parsed template. It is safe for concurrent use.
type Template struct {
	nodes                  []node
	placeholders, sections []string
}

// Parse parses text. Its error lists every section that does not pair:
// one not closed, a closing tag with no section open, or one that closes
// another section than the innermost open one; and sections nested more
// than MaxDepth deep.
func Parse(text string) (*Template, error) {
	p := &parser{src: text}
	nodes := p.parse()
	if n := len(p.errs); n > maxErrors {
		p.errs = append(p.errs[:maxErrors], fmt.Errorf("and %d more problems", n-maxErrors))
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return &Template{nodes: nodes, placeholders: p.placeholders, sections: p.sections}, nil
}

// Placeholders returns the arguments the template's placeholders name,
// each once, in the order they first appear.
func (t *Template) Placeholders() []string { return t.placeholders }

// Sections returns the arguments the template's sections name, each
// once, in the order they first appear.
func (t *Template) Sections() []string { return t.sections }

// Render returns the template's text for args: each placeholder replaced
// by its argument's value, each section kept or left out.
func (t *Template) Render(args map[string]string) string {
	var b strings.Builder
	render(&b, t.nodes, args)
	return b.String()
}

func render(b *strings.Builder, nodes []node, args map[string]string) {
	for i := range nodes {
		n := &nodes[i]
		switch n.kind {
		case text:
			b.WriteString(n.text)
		case value:
			b.WriteString(args[n.text])
		case given, notGiven:
			if (args[n.text] != "") == (n.kind == given) {
				render(b, n.inner, args)
			}
		}
	}
}

// parser reads one template.
type parser struct {
	src                    string
	pos                    int // where the text not yet read starts
	placeholders, sections []string
	errs                   []error
}

// frame is a section being read: its opening tag and what is inside.
type frame struct {
	tag   string // as written, for messages
	node  node
	depth int
}

// parse reads the whole template into nodes.
func (p *parser) parse() []node {
	stack := []*frame{{}} // the bottom frame holds the template's top level
	for _, m := range tagPattern.FindAllStringSubmatchIndex(p.src, -1) {
		if m[0] < p.pos {
			continue // inside a standalone line already consumed
		}
		sigil, name := p.src[m[2]:m[3]], p.src[m[4]:m[5]]
		start, end := m[0], m[1]
		if sigil != "" {
			start, end = p.standalone(start, end)
		}
		top := stack[len(stack)-1]
		if start > p.pos {
			top.node.inner = append(top.node.inner, node{kind: text, text: p.src[p.pos:start]})
		}
		p.pos = end
		tag := p.src[m[0]:m[1]]
		switch sigil {
		case "":
			p.placeholders = appendNew(p.placeholders, name)
			top.node.inner = append(top.node.inner, node{kind: value, text: name})
		case "#", "^":
			p.sections = appendNew(p.sections, name)
			k := given
			if sigil == "^" {
				k = notGiven
			}
			f := &frame{tag: tag, node: node{kind: k, text: name}, depth: top.depth + 1}
			if f.depth == MaxDepth+1 {
				p.errs = append(p.errs, fmt.Errorf("section %s is nested %d deep; at most %d", tag, f.depth, MaxDepth))
			}
			stack = append(stack, f)
		case "/":
			switch {
			case len(stack) == 1:
				p.errs = append(p.errs, fmt.Errorf("%s closes no section: open one with {{#%s}} before it, or remove it", tag, name))
			case top.node.text != name:
				p.errs = append(p.errs, misplacedClose(stack, tag, name))
			default:
				stack = stack[:len(stack)-1]
				parent := stack[len(stack)-1]
				parent.node.inner = append(parent.node.inner, top.node)
			}
		}
	}
	for _, f := range stack[1:] {
		p.errs = append(p.errs, fmt.Errorf("section %s is not closed: end it with {{/%s}}", f.tag, f.node.text))
	}
	root := stack[0]
	if p.pos < len(p.src) {
		root.node.inner = append(root.node.inner, node{kind: text, text: p.src[p.pos:]})
	}
	return root.node.inner
}

// misplacedClose is the error of the closing tag of name while the
// innermost open section is another one.
func misplacedClose(stack []*frame, tag, name string) error {
	top := stack[len(stack)-1]
	for i := len(stack) - 2; i > 0; i-- {
		if stack[i].node.text == name {
			return fmt.Errorf("%s closes %s, but %s inside it is still open: close it with {{/%s}} first", tag, stack[i].tag, top.tag, top.node.text)
		}
	}
	return fmt.Errorf("%s closes no open section: the innermost one open is %s; close it with {{/%s}}", tag, top.tag, top.node.text)
}

// appendNew appends name to names unless it is there.
func appendNew(names []string, name string) []string {
	if slices.Contains(names, name) {
		return names
	}
	return append(names, name)
}

// standalone widens the section tag at src[start:end] to its whole line
// when only blanks share the line with it (and it does not start where
// text already read ends mid-line): the line, its line break included,
// then renders as nothing.
func (p *parser) standalone(start, end int) (int, int) {
	lineStart := start
	for lineStart > p.pos && (p.src[lineStart-1] == ' ' || p.src[lineStart-1] == '\t') {
		lineStart--
	}
	if lineStart > 0 && p.src[lineStart-1] != '\n' {
		return start, end // text before it on its line
	}
	lineEnd := end
	for lineEnd < len(p.src) && (p.src[lineEnd] == ' ' || p.src[lineEnd] == '\t') {
		lineEnd++
	}
	switch {
	case lineEnd == len(p.src):
	case p.src[lineEnd] == '\n':
		lineEnd++
	case strings.HasPrefix(p.src[lineEnd:], "\r\n"):
		lineEnd += 2
	default:
		return start, end // text after it on its line
	}
	return lineStart, lineEnd
}
