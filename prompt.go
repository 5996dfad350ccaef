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
	"github.com/ferry-mcp/ferry/internal/jsonrpc"
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
}

// PromptArgument is one argument of a prompt. Its value is a string.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// Values are the values completion/complete suggests, filtered by what
	// is typed. A struct field's enum tag fills it.
	Values []string `json:"-"`
	// Complete, if not nil, answers completion/complete for this argument
	// instead of Values.
	Complete Completer `json:"-"`
	// OnlyValues refuses any value not in Values (-32602 naming the allowed
	// ones), and lists them in the published description (see
	// [PromptArgument.MarshalJSON]). A struct field's enum tag sets it.
	OnlyValues bool `json:"-"`
	// Default, if not empty, is the value the argument takes when the
	// client leaves it out (or sends null); the published description
	// says it. A struct field's default tag sets it.
	Default string `json:"-"`
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
	prompt  Prompt
	handler PromptHandler
	json    []byte
}

func (e *promptEntry) key() string  { return e.prompt.Name }
func (e *promptEntry) wire() []byte { return e.json }
func (e *promptEntry) guarded() bool {
	return len(e.prompt.Scopes) > 0 || len(e.prompt.Roles) > 0
}
func (e *promptEntry) openTo(*Server) bool { return !e.guarded() }
func (e *promptEntry) visibleTo(ctx context.Context, s *Server) bool {
	return s.allowsEntry(ctx, e.prompt.Scopes, e.prompt.Roles)
}

// AddPrompt registers a prompt with its handler; [AddPrompt] (the
// function) is the typed form, and [Server.AddPromptTemplate] registers a
// prompt whose Template is its message. Problems (no description, a name
// that repeats another without regard to case, a placeholder with no
// argument) are reported by [Server.Check]. It panics if h is nil.
func (s *Server) AddPrompt(p Prompt, h PromptHandler) {
	if h == nil {
		panic("ferry: AddPrompt needs a handler; use AddPromptTemplate for a template prompt") //nolint:forbidigo // a programmer error at registration, documented
	}
	s.addPrompt(p, h)
}

// AddPromptTemplate registers a prompt whose message is its Template, with
// each {{name}} replaced by the argument of that name and each section
// kept or left out (see [Prompt.Template]); p.Arguments lists them. [AddPromptTemplate] (the function) derives them from a struct.
// Problems are reported as [Server.AddPrompt]'s are, and a prompt without
// a Template is one.
func (s *Server) AddPromptTemplate(p Prompt) {
	if p.Template == "" {
		s.refusePrompt(p, errors.New("has no Template"))
		return
	}
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
	e := &promptEntry{prompt: p, handler: h, json: data}
	if s.admit("prompt", p.Name, checkPrompt(&p), dup, func() { s.prompts.add(e) }) {
		s.listChanged("notifications/prompts/list_changed", audienceOf(s, []*promptEntry{e}))
	}
}

// RemovePrompts removes the named prompts; names that are not registered
// are ignored.
func (s *Server) RemovePrompts(names ...string) {
	var removed []*promptEntry
	s.mu.Lock()
	for _, n := range names {
		if e, ok := s.prompts.get(n); ok && s.prompts.remove(n) {
			removed = append(removed, e)
		}
	}
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

type promptField struct {
	name  string
	index []int
}

// promptArgsOf derives prompt arguments from a struct of strings, reading
// its fields as encoding/json does. It reports every field that cannot be
// an argument and every tag that does not parse, not only the first.
func promptArgsOf(t reflect.Type) ([]PromptArgument, []promptField, error) {
	if t.Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("arguments type %v must be a struct of strings", t)
	}
	vars, errs := internalfields.Vars(t, "argument", isTextField, "a string: prompt arguments are strings")
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	args := make([]PromptArgument, 0, len(vars))
	fields := make([]promptField, 0, len(vars))
	for _, v := range vars {
		optional := v.Omit() || v.ViaPointer || v.StructField.Type.Kind() == reflect.Pointer || v.Tags.HasDefault
		switch v.Tags.Required {
		case internalfields.RequiredYes:
			optional = false
		case internalfields.RequiredNo:
			optional = true
		}
		args = append(args, PromptArgument{Name: v.Name, Description: v.Tags.Doc, Title: v.Tags.Title,
			Required: !optional, Default: v.Tags.Default, Values: v.Values, OnlyValues: v.Only})
		fields = append(fields, promptField{name: v.Name, index: v.Index})
	}
	return args, fields, nil
}

// isTextField reports whether a prompt argument can fill a field of type
// t: a string or a pointer to one.
func isTextField(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.String
}

// templateHandler renders a prompt's template with its arguments. A
// template that does not parse is a problem checkPrompt reports, and its
// prompt is not registered.
func templateHandler(p *Prompt) PromptHandler {
	tmpl, err := prompttext.Parse(p.Template)
	prefer, desc := p.PreferWhen, p.Description
	return func(_ context.Context, req *GetPromptRequest) (*PromptResult, error) {
		if err != nil {
			return nil, err
		}
		text := tmpl.Render(req.Arguments)
		if prefer != "" {
			text += "\n\nTool preference: " + prefer
		}
		return &PromptResult{Description: desc, Messages: []PromptMessage{UserMessage(Text(text))}}, nil
	}
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

// promptArgs checks prompts/get arguments against the declared ones: every
// value a string, none unknown, every required one present. null stands
// for an argument left out, and an argument left out takes its default. It
// reports every problem in one -32602 error.
func promptArgs(p *Prompt, raw json.RawMessage) (map[string]string, error) {
	var in map[string]json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, NewError(CodeInvalidParams, "prompt %q: arguments must be an object of strings", p.Name)
		}
	}
	var problems []string
	out := make(map[string]string, len(in))
	for _, k := range sortedKeys(in) {
		v := in[k]
		a := p.argument(k)
		switch {
		case a == nil:
			problems = append(problems, fmt.Sprintf("has no argument %q; its arguments are: %s", k, p.argumentNames()))
			continue
		case string(v) == "null":
			continue // absent
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			problems = append(problems, fmt.Sprintf("argument %q must be a string, got %s", k, v))
			continue
		}
		if a.OnlyValues && !slices.Contains(a.Values, s) {
			problems = append(problems, fmt.Sprintf("argument %q must be one of %s, got %q", k, strings.Join(a.Values, ", "), s))
			continue
		}
		out[k] = s
	}
	for _, a := range p.Arguments {
		if v, sent := in[a.Name]; sent && string(v) != "null" {
			continue // taken, or refused above
		}
		switch {
		case a.Required:
			problems = append(problems, fmt.Sprintf("argument %q is required", a.Name))
		case a.Default != "":
			out[a.Name] = a.Default
		}
	}
	return out, promptArgsError(p.Name, problems)
}

// promptArgsError returns the -32602 error listing problems, or nil.
func promptArgsError(name string, problems []string) error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		sep := ": "
		if strings.HasPrefix(problems[0], "has ") {
			sep = " "
		}
		return NewError(CodeInvalidParams, "prompt %q%s%s", name, sep, problems[0])
	}
	return NewError(CodeInvalidParams, "prompt %q: %d problems with the arguments: %s", name, len(problems), strings.Join(problems, "; "))
}

func (p *Prompt) argument(name string) *PromptArgument {
	for i := range p.Arguments {
		if p.Arguments[i].Name == name {
			return &p.Arguments[i]
		}
	}
	return nil
}

func (p *Prompt) argumentNames() string {
	if len(p.Arguments) == 0 {
		return "(none)"
	}
	names := make([]string, len(p.Arguments))
	for i, a := range p.Arguments {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

func (s *Server) getPrompt(ctx context.Context, r *request, p *wireParams, b []byte) ([]byte, error) {
	s.mu.RLock()
	e, ok := s.prompts.get(p.Name)
	s.mu.RUnlock()
	if !ok || !s.allowsEntry(ctx, e.prompt.Scopes, e.prompt.Roles) {
		return b, unknownPrompt(p.Name) // a hidden prompt reads as one that does not exist
	}
	args, err := promptArgs(&e.prompt, p.Arguments)
	if err != nil {
		return b, err
	}
	if err := s.loadModernInput(ctx, r, p.Name, p); err != nil {
		return b, err
	}
	res, err := e.handler(withRequest(ctx, r), &GetPromptRequest{Name: p.Name, Arguments: args})
	if r.inputPending() {
		return b, errInputPending
	}
	if err != nil {
		return b, s.protocolError(ctx, "prompt", p.Name, err)
	}
	if res == nil {
		res = &PromptResult{}
	}
	if res.Description != "" {
		b = appendKey(b, "description")
		b = jsonrpc.AppendString(b, res.Description)
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
