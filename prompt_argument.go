package ferry

// This file holds the arguments of a prompt: derived from a struct, and
// checked when a prompts/get names them.

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	internalfields "github.com/ferry-mcp/ferry/internal/fields"
)

// MarshalJSON encodes a as prompts/list sends it. The protocol's prompt
// arguments have a name, a title, a description and a required flag only,
// so what a client could not otherwise learn is appended to the
// description, in this order: the only values allowed ("One of: metric,
// imperial.") when OnlyValues is set, and the Default ("Default: metric.").
// The Go value's Description is left as it is.
func (a PromptArgument) MarshalJSON() ([]byte, error) {
	type wire PromptArgument // without this method
	w := wire(a)
	w.Description = a.publishedDescription()
	return json.Marshal(w)
}

// publishedDescription returns a's description with its allowed values and
// default appended, each as a sentence.
func (a *PromptArgument) publishedDescription() string {
	var notes []string
	if a.OnlyValues && len(a.Values) > 0 {
		notes = append(notes, "One of: "+strings.Join(a.Values, ", ")+".")
	}
	if a.Default != "" {
		notes = append(notes, "Default: "+a.Default+".")
	}
	if len(notes) == 0 {
		return a.Description
	}
	if a.Description != "" {
		notes = append([]string{a.Description}, notes...)
	}
	return strings.Join(notes, " ")
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
