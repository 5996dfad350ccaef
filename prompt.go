package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	internalfields "github.com/ferry-mcp/ferry/internal/fields"
	"github.com/ferry-mcp/ferry/internal/jsontext"
	"github.com/ferry-mcp/ferry/internal/prompttext"
)

// Prompt describes a prompt: messages a user picks, filled in with
// arguments. A prompt with a Template needs no handler: the template,
// with each {{name}} replaced by its argument and its sections kept or
// left out, becomes one user message, followed by PreferWhen.
type Prompt struct {
	// Name identifies the prompt; names are unique without regard to case.
	Name        string
	Title       string
	Description string
	// Arguments are the prompt's arguments, all strings. [AddPromptTemplate] and
	// [AddPrompt] derive them from a struct instead.
	Arguments []PromptArgument
	// Template is the text of the prompt's user message, with {{name}}
	// placeholders for its arguments (an argument left out renders as
	// nothing) and sections, a subset of Mustache: {{#name}}...{{/name}}
	// holds text that appears only when the argument is given (not
	// empty), {{^name}}...{{/name}} text that appears only when it is
	// not. Sections nest, and a section tag alone on its line takes the
	// line with it:
	//
	//	Summarize order {{id}}{{#style}} in a {{style}} tone{{/style}}.
	//
	// renders "Summarize order 7." without a style. Argument values are
	// never read as template text. A section that is not closed, or one
	// or a placeholder naming no argument, is a problem [Server.Check]
	// reports.
	Template string
	// PreferWhen says when the model should prefer the tools the prompt
	// names; it is added after the template as "Tool preference: ...".
	PreferWhen string
	Icons      []Icon
	// Scopes and Roles are what a caller needs to see and get the prompt,
	// as for [Tool.Scopes] and [Tool.Roles].
	Scopes []string
	Roles  []string
	// Groups name the groups the prompt belongs to, as [Tool.Groups]
	// does; a template prompt has no handler to derive one from.
	Groups []string
}

// GetPromptRequest is a prompts/get as a prompt handler sees it: the
// arguments are checked against the prompt's declared arguments first.
type GetPromptRequest struct {
	Name      string
	Arguments map[string]string
}

// PromptResult is what a prompt handler returns.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptHandler builds a prompt's messages. A returned [*Error] reaches the
// client as is; any other error becomes -32603 with the details logged. A
// nil result is a prompt with no messages.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*PromptResult, error)

type promptEntry struct {
	requirement
	prompt  Prompt
	handler PromptHandler
	json    []byte
}

func (e *promptEntry) key() string  { return e.prompt.Name }
func (e *promptEntry) wire() []byte { return e.json }

// AddPrompt registers a prompt with its handler; [AddPrompt] (the
// function) is the typed form, and [Server.AddPromptTemplate] registers a
// prompt whose Template is its message. Problems (no description, a name
// that repeats another without regard to case, a placeholder with no
// argument) are reported by [Server.Check]. It panics if h is nil.
func (s *Server) AddPrompt(p Prompt, h PromptHandler) {
	if h == nil {
		panic("ferry: AddPrompt needs a handler; use AddPromptTemplate for a template prompt") //nolint:forbidigo // a programmer error at registration, documented
	}
	p.Groups = handlerGroups(p.Groups, h)
	s.addPrompt(p, h)
}

// AddPromptTemplate registers a prompt whose message is its Template, with
// each {{name}} replaced by the argument of that name and each section
// kept or left out (see [Prompt.Template]); p.Arguments lists them.
// [AddPromptTemplate] (the function) derives them from a struct.
// Problems are reported as [Server.AddPrompt]'s are, and a prompt without
// a Template is one.
func (s *Server) AddPromptTemplate(p Prompt) {
	if p.Template == "" {
		s.refusePrompt(p, errors.New("has no Template"))
		return
	}
	p.Groups = handlerGroups(p.Groups, nil)
	s.addPrompt(p, templateHandler(&p))
}

func (s *Server) addPrompt(p Prompt, h PromptHandler) {
	data, err := json.Marshal(struct {
		Name        string           `json:"name"`
		Title       string           `json:"title,omitempty"`
		Description string           `json:"description,omitempty"`
		Arguments   []PromptArgument `json:"arguments,omitempty"`
		Icons       []Icon           `json:"icons,omitempty"`
	}{p.Name, p.Title, s.describe(p.Description, p.Scopes, p.Roles), p.Arguments, p.Icons})
	if err != nil {
		s.problem(fmt.Errorf("prompt %q: %w", p.Name, err))
		return
	}
	dup := func() []error {
		for _, e := range s.prompts.sorted {
			if strings.EqualFold(e.prompt.Name, p.Name) {
				return []error{fmt.Errorf("prompt %q: its name repeats prompt %q (names are compared without regard to case)", p.Name, e.prompt.Name)}
			}
		}
		return nil
	}
	e := &promptEntry{requirement: requirement{p.Scopes, p.Roles}, prompt: p, handler: h, json: data}
	problems := checkPrompt(&p)
	if err := groupProblem("prompt", p.Name, p.Groups); err != nil {
		problems = append(problems, err)
	}
	if s.admit("prompt", p.Name, problems, dup, func() { s.prompts.add(e) }) {
		s.listChanged("notifications/prompts/list_changed", audienceOf(s, []*promptEntry{e}))
	}
}

// RemovePrompts removes the named prompts; names that are not registered
// are ignored.
func (s *Server) RemovePrompts(names ...string) {
	s.mu.Lock()
	removed := s.prompts.removeAll(names)
	s.mu.Unlock()
	if len(removed) > 0 {
		s.listChanged("notifications/prompts/list_changed", audienceOf(s, removed))
	}
}

// AddPromptTemplate registers a template prompt whose arguments come from the
// struct A: one argument per string field, named as encoding/json would,
// described by its doc tag and titled by its title tag, required unless
// omitempty, omitzero, a pointer or given a default (the required tag
// overrides that). An enum tag ("metric,imperial") lists the only values
// allowed and completes them; a suggest tag lists values to complete while
// allowing others; a default tag is the value of an argument left out.
// Every problem with A's fields and tags is reported by [Server.Check].
func AddPromptTemplate[A any](s *Server, p Prompt) {
	args, _, err := promptArgsOf(reflect.TypeFor[A]())
	if err != nil {
		s.refusePrompt(p, err)
		return
	}
	p.Arguments = args
	s.AddPromptTemplate(p)
}

// AddPrompt registers a prompt whose messages h builds in code, with
// arguments from the struct A as in [AddPromptTemplate].
func AddPrompt[A any](s *Server, p Prompt, h func(ctx context.Context, args A) ([]PromptMessage, error)) {
	if h == nil {
		panic("ferry: AddPrompt needs a handler; use AddPromptTemplate for a template prompt") //nolint:forbidigo // a programmer error at registration, as for the method
	}
	p.Groups = handlerGroups(p.Groups, h)
	args, fields, err := promptArgsOf(reflect.TypeFor[A]())
	if err != nil {
		s.refusePrompt(p, err)
		return
	}
	p.Arguments = args
	s.AddPrompt(p, func(ctx context.Context, req *GetPromptRequest) (*PromptResult, error) {
		var a A
		v := reflect.ValueOf(&a).Elem()
		for _, f := range fields {
			val, ok := req.Arguments[f.name]
			if !ok {
				continue
			}
			fv := internalfields.Value(v, f.index)
			if fv.Kind() == reflect.Pointer {
				fv.Set(reflect.New(fv.Type().Elem()))
				fv = fv.Elem()
			}
			fv.SetString(val)
		}
		msgs, err := h(ctx, a)
		if err != nil {
			return nil, err
		}
		return &PromptResult{Description: p.Description, Messages: msgs}, nil
	})
}

// refusePrompt records the problems of a typed prompt whose argument
// struct cannot serve, with those of its name and description, so that
// Check reports them all at once (its template is checked once it has
// arguments).
func (s *Server) refusePrompt(p Prompt, err error) {
	bare := Prompt{Name: p.Name, Description: p.Description}
	s.admit("prompt", p.Name, append(checkPrompt(&bare), fmt.Errorf("prompt %q: %w", p.Name, err)), nil, nil)
}

// checkPrompt returns the problems of one prompt's declaration.
func checkPrompt(p *Prompt) []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("prompt %q: "+format, append([]any{p.Name}, args...)...))
	}
	if p.Name == "" {
		add("has no name")
	}
	if p.Description == "" {
		add("has no description: say what it is for")
	}
	for _, pr := range requirementProblems(p.Scopes, p.Roles) {
		add("%s", pr)
	}
	seen := map[string]bool{}
	for _, a := range p.Arguments {
		if seen[a.Name] {
			add("argument %q is declared twice", a.Name)
		}
		seen[a.Name] = true
		if a.OnlyValues && a.Default != "" && !slices.Contains(a.Values, a.Default) {
			add("argument %q: its default %q is not one of its values (%s)", a.Name, a.Default, strings.Join(a.Values, ", "))
		}
	}
	tmpl, err := prompttext.Parse(p.Template)
	if err != nil {
		for line := range strings.Lines(err.Error()) {
			add("template: %s", strings.TrimSuffix(line, "\n"))
		}
		return errs
	}
	for _, name := range tmpl.Placeholders() {
		if !seen[name] {
			add("template placeholder {{%s}} has no argument of that name", name)
		}
	}
	for _, name := range tmpl.Sections() {
		if !seen[name] && !slices.Contains(tmpl.Placeholders(), name) { // reported above
			add("template section {{#%s}} or {{^%s}} has no argument of that name", name, name)
		}
	}
	return errs
}

// getPrompt answers prompts/get for the prompt r names, which the caller
// may see.
func (s *Server) getPrompt(ctx context.Context, r *request, b []byte) ([]byte, error) {
	e := r.target.prompt
	args, err := promptArgs(&e.prompt, r.params.Arguments)
	if err != nil {
		return b, err
	}
	if err := s.loadModernInput(ctx, r); err != nil {
		return b, err
	}
	res, err := e.handler(ctx, &GetPromptRequest{Name: e.prompt.Name, Arguments: args})
	if r.inputPending() {
		return b, errInputPending
	}
	if err != nil {
		return b, s.protocolError(ctx, "prompt", e.prompt.Name, err)
	}
	if res == nil {
		res = &PromptResult{}
	}
	if res.Description != "" {
		b = appendKey(b, "description")
		b = jsontext.AppendString(b, res.Description)
	}
	b = appendKey(b, "messages")
	b = append(b, '[')
	for i := range res.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		b = res.Messages[i].appendJSON(b)
	}
	return append(b, ']'), nil
}

// unknownPrompt is the answer to a prompt that is not registered, or that
// the caller may not see: the two read the same.
func unknownPrompt(name string) error {
	return NewError(CodeInvalidParams, "unknown prompt %q", name)
}
