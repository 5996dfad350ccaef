package fields

import (
	"errors"
	"iter"
	"reflect"
	"strings"
)

// Tags is the tag vocabulary every reader of fields shares. Keywords that
// only a JSON Schema has (minimum, pattern and the like) are read by
// package schema.
type Tags struct {
	// Doc is the doc tag: the field's description.
	Doc string
	// Title is the title tag: a display name.
	Title string
	// Enum is the enum tag split at commas, each value trimmed of spaces:
	// the only values allowed. Nil when there is no enum tag.
	Enum []string
	// Suggest is the suggest tag, split as Enum is: values to offer while
	// allowing others.
	Suggest []string
	// Required is the required tag: RequiredUnset if absent.
	Required Requirement
	// Default is the default tag, as written; HasDefault says it is there.
	Default    string
	HasDefault bool
}

// Requirement is what a required tag says.
type Requirement uint8

// The values of a [Requirement].
const (
	RequiredUnset Requirement = iota // no required tag: the field's shape decides
	RequiredYes                      // required:"true"
	RequiredNo                       // required:"false"
)

// Keys are the tag keys [Parse] reads, in the order it reads them.
var Keys = []string{"doc", "title", "enum", "suggest", "required", "default"}

// TagError is one tag of the shared vocabulary that does not parse.
type TagError struct {
	Key   string // the tag key, such as "required"
	Value string // the tag's value
	Err   error  // what is wrong, phrased to follow the tag: "is not true or false"
}

// Error returns a message such as `tag required "yes" is not true or false`.
func (e *TagError) Error() string { return "tag " + e.Key + " " + quote(e.Value) + " " + e.Err.Error() }

// Unwrap returns e.Err.
func (e *TagError) Unwrap() error { return e.Err }

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// Parse reads the shared vocabulary from tag. It returns every tag that
// does not parse (not only the first): a required value other than true or
// false, an empty enum or suggest list or an empty item in one, and both
// enum and suggest on one field.
func Parse(tag reflect.StructTag) (Tags, []*TagError) {
	var t Tags
	var errs []*TagError
	fail := func(key, msg string) {
		errs = append(errs, &TagError{Key: key, Value: tag.Get(key), Err: errors.New(msg)})
	}
	t.Doc = tag.Get("doc")
	t.Title = tag.Get("title")
	if v, ok := tag.Lookup("enum"); ok {
		if t.Enum = SplitList(v); t.Enum == nil {
			fail("enum", "has an empty value: list the values, separated by commas")
		}
	}
	if v, ok := tag.Lookup("suggest"); ok {
		if t.Suggest = SplitList(v); t.Suggest == nil {
			fail("suggest", "has an empty value: list the values, separated by commas")
		}
		if t.Enum != nil {
			fail("suggest", "cannot be used with enum, which already lists the values")
		}
	}
	if v, ok := tag.Lookup("required"); ok {
		switch v {
		case "true":
			t.Required = RequiredYes
		case "false":
			t.Required = RequiredNo
		default:
			fail("required", "is not true or false")
		}
	}
	t.Default, t.HasDefault = tag.Lookup("default")
	return t, errs
}

// SplitList splits a comma-separated tag value, trimming each item of
// spaces. It returns nil if v or any item is empty.
func SplitList(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil
		}
		out = append(out, item)
	}
	return out
}

// TagKeys yields the keys of a struct tag in the conventional format, as
// [reflect.StructTag.Lookup] parses it.
func TagKeys(tag reflect.StructTag) iter.Seq[string] {
	return func(yield func(string) bool) {
		for tag != "" {
			tag = reflect.StructTag(strings.TrimLeft(string(tag), " "))
			i := 0
			for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
				i++
			}
			if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
				return
			}
			key := string(tag[:i])
			tag = tag[i+1:]
			i = 1
			for i < len(tag) && tag[i] != '"' {
				if tag[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(tag) || !yield(key) {
				return
			}
			tag = tag[i+1:]
		}
	}
}
