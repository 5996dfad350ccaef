package protomcp

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/ferry-mcp/ferry"
	ferrypb "github.com/ferry-mcp/ferry/protomcp/ferrypb/v1"
	"github.com/ferry-mcp/ferry/toolname"
)

// placeholder matches a template's {{arg}}, and the tags of its sections
// ({{#arg}}, {{^arg}}, {{/arg}}), as the root's prompt templates read them
// (see ferry.Prompt.Template): every name they hold must be an argument.
// Whether sections pair is checked when the prompt is registered.
var placeholder = regexp.MustCompile(`\{\{\s*([#^/]?)\s*([A-Za-z0-9_.-]+)\s*\}\}`)

// describePrompts returns the prompts of sd's (ferry.v1.prompts) option and
// of its methods' (ferry.v1.method_prompts), checking each and that no two
// names are the same without regard to case.
func describePrompts(sd protoreflect.ServiceDescriptor) ([]PromptSpec, error) {
	so, err := serviceOptions(sd)
	if err != nil {
		return nil, err
	}
	var (
		out  []PromptSpec
		errs []error
		seen = map[string]string{}
	)
	add := func(origin protoreflect.FullName, opts []*ferrypb.PromptOptions, input protoreflect.MessageDescriptor) {
		for _, po := range opts {
			p, err := describePrompt(sd, origin, po, input)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			key := strings.ToLower(p.Name)
			if other, ok := seen[key]; ok {
				errs = append(errs, fmt.Errorf("protomcp: %s: prompt name %q repeats prompt %s without regard to case", origin, p.Name, other))
				continue
			}
			seen[key] = fmt.Sprintf("%q of %s", p.Name, origin)
			out = append(out, *p)
		}
	}
	sp, _ := proto.GetExtension(so, ferrypb.E_Prompts).([]*ferrypb.PromptOptions)
	add(sd.FullName(), sp, nil)
	methods := sd.Methods()
	for i := range methods.Len() {
		md := methods.Get(i)
		mo, err := methodOptions(md)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		mp, _ := proto.GetExtension(mo, ferrypb.E_MethodPrompts).([]*ferrypb.PromptOptions)
		add(md.FullName(), mp, md.Input())
	}
	return out, errors.Join(errs...)
}

// describePrompt checks one prompt option declared on origin. input is the
// method's input message for a method prompt, nil for a service prompt.
func describePrompt(sd protoreflect.ServiceDescriptor, origin protoreflect.FullName, po *ferrypb.PromptOptions, input protoreflect.MessageDescriptor) (*PromptSpec, error) {
	p := &PromptSpec{
		Name:        po.GetName(),
		Title:       po.GetTitle(),
		Description: strings.TrimSpace(po.GetDescription()),
		Template:    po.GetTemplate(),
		PreferWhen:  strings.TrimSpace(po.GetPreferWhen()),
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("protomcp: %s: prompt %q: "+format, append([]any{origin, p.Name}, args...)...))
	}
	if err := toolname.Check(p.Name); err != nil {
		fail("%v", err)
	}
	if p.Description == "" {
		fail("has no description: say what it is for")
	}
	if strings.TrimSpace(p.Template) == "" {
		fail("has no template")
	}
	args := input
	if name := strings.TrimPrefix(po.GetArguments(), "."); name != "" {
		args = findMessage(sd.ParentFile(), protoreflect.FullName(name))
		if args == nil {
			fail("arguments message %s is not defined in %s or the files it imports", name, sd.ParentFile().Path())
		}
	}
	declared := map[string]bool{}
	if args != nil {
		fields := args.Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if fd.IsList() || fd.IsMap() || fd.Message() != nil {
				fail("argument %s of %s is a %s; prompt arguments are strings, so use scalar or enum fields (set arguments to a message of them)", fd.Name(), args.FullName(), fieldShape(fd))
				continue
			}
			required, err := fieldRequired(fd)
			if err != nil {
				errs = append(errs, err)
			}
			declared[string(fd.Name())] = true
			p.Arguments = append(p.Arguments, ferry.PromptArgument{Name: string(fd.Name()), Description: leadingComment(fd), Required: required})
		}
	}
	reported := map[string]bool{}
	for _, m := range placeholder.FindAllStringSubmatch(p.Template, -1) {
		name := m[2]
		if declared[name] || reported[name] {
			continue
		}
		reported[name] = true
		what := "placeholder {{" + name + "}}"
		if m[1] != "" {
			what = "section {{#" + name + "}}"
		}
		if args == nil {
			fail("template %s names no argument: the prompt has none (set arguments)", what)
		} else {
			fail("template %s is not a field of %s", what, args.FullName())
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// fieldShape names what makes fd unfit as a prompt argument.
func fieldShape(fd protoreflect.FieldDescriptor) string {
	switch {
	case fd.IsMap():
		return "map"
	case fd.IsList():
		return "repeated field"
	default:
		return "message"
	}
}

// findMessage looks name up in file and, transitively, the files it
// imports; nil if none defines it.
func findMessage(file protoreflect.FileDescriptor, name protoreflect.FullName) protoreflect.MessageDescriptor {
	seen := map[string]bool{}
	var walk func(f protoreflect.FileDescriptor) protoreflect.MessageDescriptor
	walk = func(f protoreflect.FileDescriptor) protoreflect.MessageDescriptor {
		if f == nil || seen[f.Path()] {
			return nil
		}
		seen[f.Path()] = true
		if md := messageIn(f.Messages(), name); md != nil {
			return md
		}
		imports := f.Imports()
		for i := range imports.Len() {
			if md := walk(imports.Get(i).FileDescriptor); md != nil {
				return md
			}
		}
		return nil
	}
	return walk(file)
}

// messageIn finds name among msgs and their nested messages.
func messageIn(msgs protoreflect.MessageDescriptors, name protoreflect.FullName) protoreflect.MessageDescriptor {
	for i := range msgs.Len() {
		md := msgs.Get(i)
		if md.FullName() == name {
			return md
		}
		if strings.HasPrefix(string(name), string(md.FullName())+".") {
			if nested := messageIn(md.Messages(), name); nested != nil {
				return nested
			}
		}
	}
	return nil
}
