package ferry

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// Prompt describes a prompt: messages a user picks, filled in with
// arguments. A prompt with a Template needs no handler: the template,
// with each {{name}} replaced by its argument, becomes one user message,
// followed by PreferWhen.
type Prompt struct {
	// Name identifies the prompt; names are unique without regard to case.
	Name        string
	Title       string
	Description string
	// Arguments are the prompt's arguments, all strings. [AddPromptTemplate] and
	// [AddPrompt] derive them from a struct instead.
	Arguments []PromptArgument
	// Template is the text of the prompt's user message, with {{name}}
	// placeholders for its arguments.
	Template string
	// PreferWhen says when the model should prefer the tools the prompt
	// names; it is added after the template as "Tool preference: ...".
	PreferWhen string
	Icons      []Icon
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
	// ones). A struct field's enum tag sets it.
	OnlyValues bool `json:"-"`
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

// AddPrompt registers a prompt with its handler, or, when h is nil, a
// prompt whose Template is its message. Problems (no description, a name
// that repeats another without regard to case, a placeholder with no
// argument) are reported by [Server.Check].
func (s *Server) AddPrompt(p Prompt, h PromptHandler) {
	if h == nil {
		if p.Template == "" {
			s.problem(fmt.Errorf("prompt %q has neither a handler nor a template", p.Name))
			return
		}
		h = templateHandler(&p)
	}
	data, err := json.Marshal(struct {
		Name        string           `json:"name"`
		Title       string           `json:"title,omitempty"`
		Description string           `json:"description,omitempty"`
		Arguments   []PromptArgument `json:"arguments,omitempty"`
		Icons       []Icon           `json:"icons,omitempty"`
	}{p.Name, p.Title, p.Description, p.Arguments, p.Icons})
	if err != nil {
		s.problem(fmt.Errorf("prompt %q: %v", p.Name, err))
		return
	}
	for _, err := range checkPrompt(&p) {
		s.problem(err)
	}
	s.mu.Lock()
	for _, e := range s.prompts.sorted {
		if strings.EqualFold(e.prompt.Name, p.Name) {
			s.problems = append(s.problems, fmt.Errorf("prompt %q: its name repeats prompt %q (names are compared without regard to case)", p.Name, e.prompt.Name))
		}
	}
	s.prompts.add(&promptEntry{prompt: p, handler: h, json: data})
	s.mu.Unlock()
	s.listChanged("notifications/prompts/list_changed")
}

// RemovePrompts removes the named prompts; names that are not registered
// are ignored.
func (s *Server) RemovePrompts(names ...string) {
	removed := false
	s.mu.Lock()
	for _, n := range names {
		removed = s.prompts.remove(n) || removed
	}
	s.mu.Unlock()
	if removed {
		s.listChanged("notifications/prompts/list_changed")
	}
}

// AddPromptTemplate registers a template prompt whose arguments come from the
// struct A: one argument per string field, named as encoding/json would,
// described by its doc tag, required unless omitempty, omitzero or a
// pointer. An enum tag ("metric,imperial") lists the only values allowed
// and completes them; a suggest tag lists values to complete while
// allowing others.
func AddPromptTemplate[A any](s *Server, p Prompt) {
	args, _, err := promptArgsOf(reflect.TypeFor[A]())
	if err != nil {
		s.problem(fmt.Errorf("prompt %q: %w", p.Name, err))
		return
	}
	p.Arguments = args
	s.AddPrompt(p, nil)
}

// AddPrompt registers a prompt whose messages h builds in code, with
// arguments from the struct A as in [AddPromptTemplate].
func AddPrompt[A any](s *Server, p Prompt, h func(ctx context.Context, args A) ([]PromptMessage, error)) {
	args, fields, err := promptArgsOf(reflect.TypeFor[A]())
	if err != nil {
		s.problem(fmt.Errorf("prompt %q: %w", p.Name, err))
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
			fv := v.FieldByIndex(f.index)
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

// promptArgsOf derives prompt arguments from a struct of strings.
func promptArgsOf(t reflect.Type) ([]PromptArgument, []promptField, error) {
	if t.Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("arguments type %v must be a struct of strings", t)
	}
	var args []PromptArgument
	var fields []promptField
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ft := f.Type
		optional := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		if ft.Kind() == reflect.Pointer {
			ft, optional = ft.Elem(), true
		}
		if ft.Kind() != reflect.String {
			return nil, nil, fmt.Errorf("argument %s (%v.%s) must be a string: prompt arguments are strings", name, t, f.Name)
		}
		if r := f.Tag.Get("required"); r != "" {
			optional = r != "true"
		}
		a := PromptArgument{Name: name, Description: f.Tag.Get("doc"), Title: f.Tag.Get("title"), Required: !optional}
		if enum := f.Tag.Get("enum"); enum != "" {
			a.Values, a.OnlyValues = splitList(enum), true
		} else if suggest := f.Tag.Get("suggest"); suggest != "" {
			a.Values = splitList(suggest)
		}
		args = append(args, a)
		fields = append(fields, promptField{name: name, index: f.Index})
	}
	return args, fields, nil
}

var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}`)

// templateHandler renders a prompt's template with its arguments.
func templateHandler(p *Prompt) PromptHandler {
	tmpl, prefer, desc := p.Template, p.PreferWhen, p.Description
	return func(_ context.Context, req *GetPromptRequest) (*PromptResult, error) {
		text := placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
			return req.Arguments[placeholder.FindStringSubmatch(m)[1]]
		})
		if prefer != "" {
			text += "\n\nTool preference: " + prefer
		}
		return &PromptResult{Description: desc, Messages: []PromptMessage{UserMessage(Text(text))}}, nil
	}
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
	seen := map[string]bool{}
	for _, a := range p.Arguments {
		if seen[a.Name] {
			add("argument %q is declared twice", a.Name)
		}
		seen[a.Name] = true
	}
	for _, m := range placeholder.FindAllStringSubmatch(p.Template, -1) {
		if !seen[m[1]] {
			add("template placeholder {{%s}} has no argument of that name", m[1])
		}
	}
	return errs
}

// promptArgs checks prompts/get arguments against the declared ones: every
// value a string, none unknown, every required one present.
func promptArgs(p *Prompt, raw json.RawMessage) (map[string]string, error) {
	var in map[string]json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, NewError(CodeInvalidParams, "prompt %q: arguments must be an object of strings", p.Name)
		}
	}
	out := make(map[string]string, len(in))
	for _, k := range sortedKeys(in) {
		v := in[k]
		if p.argument(k) == nil {
			return nil, NewError(CodeInvalidParams, "prompt %q has no argument %q; its arguments are: %s", p.Name, k, p.argumentNames())
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, NewError(CodeInvalidParams, "prompt %q: argument %q must be a string, got %s", p.Name, k, v)
		}
		if a := p.argument(k); a.OnlyValues && !slices.Contains(a.Values, s) {
			return nil, NewError(CodeInvalidParams, "prompt %q: argument %q must be one of %s, got %q", p.Name, k, strings.Join(a.Values, ", "), s)
		}
		out[k] = s
	}
	for _, a := range p.Arguments {
		if _, ok := out[a.Name]; a.Required && !ok {
			return nil, NewError(CodeInvalidParams, "prompt %q: argument %q is required", p.Name, a.Name)
		}
	}
	return out, nil
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

// splitList splits a comma-separated tag value, trimming spaces.
func splitList(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		out = append(out, strings.TrimSpace(item))
	}
	return out
}

func (s *Server) getPrompt(ctx context.Context, r *request, p *wireParams, b []byte) ([]byte, error) {
	s.mu.RLock()
	e, ok := s.prompts.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return b, NewError(CodeInvalidParams, "unknown prompt %q", p.Name)
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
