package protomcp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"github.com/ferry-mcp/ferry/schema"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// violations runs v on m and returns its violations as schema errors, with
// the field paths in the JSON names the model wrote, or an error when the
// rules themselves cannot run (a CEL expression that does not compile).
func violations(v protovalidate.Validator, m proto.Message) (schema.Errors, error) {
	var l errorList
	if err := addViolations(&l, v, m, nil); err != nil {
		return nil, err
	}
	return l.list(), nil
}

// addViolations runs v on m and adds its violations to l, but those at a
// path in skip.
func addViolations(l *errorList, v protovalidate.Validator, m proto.Message, skip map[string]bool) error {
	err := v.Validate(m)
	if err == nil {
		return nil
	}
	var ve *protovalidate.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	md := m.ProtoReflect().Descriptor()
	for _, viol := range ve.Violations {
		p := jsonPath(md, viol.Proto.GetField())
		switch {
		case skip[p]:
			continue
		case len(l.errs) >= schema.MaxErrors:
			l.dropped++ // counted, not written
			continue
		}
		msg := violationMessage(viol.Proto)
		if got := gotValue(viol); got != "" {
			msg += ", got " + got
		}
		l.add(&schema.Error{Path: p, Message: msg})
	}
	return nil
}

// violationMessage writes a violation as the root's sentences read, after
// the path: "must be at least 3 characters" rather than "value length must
// be at least 3 characters", "is required" rather than "value is required".
func violationMessage(v *validate.Violation) string {
	msg := v.GetMessage()
	if msg == "" {
		return "breaks the rule " + strconv.Quote(v.GetRuleId())
	}
	for _, p := range []string{"value length ", "value ", "values "} {
		if rest, ok := strings.CutPrefix(msg, p); ok && rest != "" {
			return rest
		}
	}
	return msg
}

// gotValue writes what the model sent for a violation, as the root's
// messages end ("must be at least 3 characters, got 1"): the length for a
// length rule, the count for an item or pair count, the value itself for a
// scalar; "" when there is nothing to show (a message-level rule, a
// message value).
func gotValue(v *protovalidate.Violation) string {
	fv := v.FieldValue
	if !fv.IsValid() || v.FieldDescriptor == nil {
		return ""
	}
	rule := ""
	if v.RuleDescriptor != nil {
		rule = string(v.RuleDescriptor.Name())
	}
	switch x := fv.Interface().(type) {
	case protoreflect.List:
		if strings.HasSuffix(rule, "_items") {
			return strconv.Itoa(x.Len())
		}
	case protoreflect.Map:
		if strings.HasSuffix(rule, "_pairs") {
			return strconv.Itoa(x.Len())
		}
	case protoreflect.Message:
	case string:
		switch rule {
		case "len", "min_len", "max_len":
			return strconv.Itoa(utf8.RuneCountInString(x))
		case "len_bytes", "min_bytes", "max_bytes":
			return strconv.Itoa(len(x))
		}
		return show(x)
	case []byte:
		switch rule {
		case "len", "min_len", "max_len":
			return strconv.Itoa(len(x))
		}
	case protoreflect.EnumNumber:
		if ev := v.FieldDescriptor.Enum().Values().ByNumber(x); ev != nil {
			return strconv.Quote(string(ev.Name()))
		}
		return strconv.Itoa(int(x))
	case bool, int32, int64, uint32, uint64, float32, float64:
		return fmt.Sprint(x)
	}
	return ""
}

// jsonPath writes a protovalidate field path with the fields' JSON names,
// in the root's form: items[2].sku, labels.env, ["a b"].
func jsonPath(md protoreflect.MessageDescriptor, fp *validate.FieldPath) string {
	var p path
	for _, e := range fp.GetElements() {
		var fd protoreflect.FieldDescriptor
		if md != nil {
			fd = md.Fields().ByNumber(protoreflect.FieldNumber(e.GetFieldNumber()))
		}
		name := e.GetFieldName()
		if fd != nil {
			name = fd.JSONName()
			if !fd.IsExtension() && name == "" {
				name = string(fd.Name())
			}
		}
		p = p.field(name)
		switch s := e.GetSubscript().(type) {
		case *validate.FieldPathElement_Index:
			p = p.index(int(s.Index))
		case *validate.FieldPathElement_BoolKey:
			p = p.field(strconv.FormatBool(s.BoolKey))
		case *validate.FieldPathElement_IntKey:
			p = p.field(strconv.FormatInt(s.IntKey, 10))
		case *validate.FieldPathElement_UintKey:
			p = p.field(strconv.FormatUint(s.UintKey, 10))
		case *validate.FieldPathElement_StringKey:
			p = p.field(s.StringKey)
		}
		md = nil
		if fd != nil {
			switch {
			case fd.IsMap():
				md = fd.MapValue().Message()
			default:
				md = fd.Message()
			}
		}
	}
	return p.String()
}
