package ferry

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/ferry-mcp/ferry/toolname"
)

// ToolDescriber is implemented by the code `ferry gen` writes for a type
// (on a pointer to it, so that a type holding a mutex is not copied): the
// tools its methods become, keyed by method name, with descriptions taken
// from the methods' doc comments and hints from their //ferry:
// directives.
type ToolDescriber interface {
	FerryTools() map[string]Tool
}

var (
	contextType = reflect.TypeFor[context.Context]()
	errorType   = reflect.TypeFor[error]()
)

// AddMethods registers as tools the exported methods of v that have the
// shape func(context.Context, In) (Out, error), as [AddTool] would. A tool
// is named after its method in snake case (FindBooks becomes find_books)
// unless the generated description names it otherwise. Descriptions come
// from v's [ToolDescriber], which `go generate` writes with `ferry gen`; a
// method without one is a start-up problem naming it (see [Server.Check]).
// Methods of other shapes are ignored. A v that is not a pointer has only
// its value-receiver methods: tool-shaped methods with pointer receivers
// are a start-up problem saying to pass a pointer. Calls go through
// reflection.
func AddMethods(s *Server, v any) {
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	var docs map[string]Tool
	if d, ok := describer(v, rt); ok {
		docs = d.FerryTools()
	}
	found := 0
	for i := range rt.NumMethod() {
		m := rt.Method(i)
		if m.Name == "FerryTools" {
			continue
		}
		ft := m.Type // includes the receiver
		if !toolShaped(ft) {
			continue
		}
		found++
		t, ok := docs[m.Name]
		if t.Name == "" {
			t.Name = toolname.SnakeCase(m.Name)
		}
		var undescribed error
		if !ok || t.Description == "" {
			undescribed = fmt.Errorf("tool %q: method %v.%s has no description: give it a doc comment and run go generate (ferry gen)", t.Name, rt, m.Name)
		}
		addMethod(s, t, rv.Method(i), ft.In(2), ft.Out(0), undescribed)
	}
	switch missed := pointerMethods(rt); {
	case found == 0 && len(missed) > 0:
		s.problem(fmt.Errorf("AddMethods: %v has no exported method of the form func(context.Context, In) (Out, error): its methods have pointer receivers: pass &%s{}", rt, rt.Name()))
	case found == 0:
		s.problem(fmt.Errorf("AddMethods: %v has no exported method of the form func(context.Context, In) (Out, error)", rt))
	case len(missed) > 0:
		what := "method " + missed[0] + " has a pointer receiver, so a %v does not have it"
		if len(missed) > 1 {
			what = "methods " + strings.Join(missed, ", ") + " have pointer receivers, so a %v does not have them"
		}
		s.problem(fmt.Errorf("AddMethods: %v: "+what+": pass &%s{}", rt, rt, rt.Name()))
	}
}

// toolShaped reports whether the method type ft (receiver included) is
// func(context.Context, In) (Out, error).
func toolShaped(ft reflect.Type) bool {
	return ft.NumIn() == 3 && ft.NumOut() == 2 && ft.In(1) == contextType && ft.Out(1) == errorType
}

// pointerMethods returns the tool-shaped methods that *rt has and rt, not
// a pointer, has not: those declared with a pointer receiver, which
// AddMethods cannot see on a value.
func pointerMethods(rt reflect.Type) []string {
	if rt.Kind() == reflect.Pointer {
		return nil
	}
	var missed []string
	pt := reflect.PointerTo(rt)
	for i := range pt.NumMethod() {
		m := pt.Method(i)
		if _, onValue := rt.MethodByName(m.Name); onValue || m.Name == "FerryTools" || !toolShaped(m.Type) {
			continue
		}
		missed = append(missed, m.Name)
	}
	return missed
}

// describer returns v's [ToolDescriber]. `ferry gen` writes FerryTools
// with a pointer receiver, so for a v that is not a pointer it asks a new
// *T, whose FerryTools reads nothing of its receiver.
func describer(v any, rt reflect.Type) (ToolDescriber, bool) {
	if d, ok := v.(ToolDescriber); ok {
		return d, true
	}
	if rt.Kind() != reflect.Pointer {
		d, ok := reflect.New(rt).Interface().(ToolDescriber)
		return d, ok
	}
	return nil, false
}

// addMethod registers the method fn as the tool t, unless t is
// undescribed (not nil: why not) or its types do not make a tool; then
// every problem of it is reported at once.
func addMethod(s *Server, t Tool, fn reflect.Value, in, out reflect.Type, undescribed error) {
	spec, err := s.newTypedSpec(&t, in, out)
	if err != nil || undescribed != nil {
		s.refuseTyped(&t, undescribed, err)
		return
	}
	s.addTool(t, func(ctx context.Context, req *CallToolRequest) (*ToolResult, error) {
		arg := reflect.New(in)
		if res := decodeArguments(ctx, req.Arguments, arg.Interface()); res != nil {
			return res, nil
		}
		outs := fn.Call([]reflect.Value{reflect.ValueOf(ctx), arg.Elem()})
		if err, _ := outs[1].Interface().(error); err != nil {
			return nil, err
		}
		return spec.result(outs[0].Interface())
	})
}
