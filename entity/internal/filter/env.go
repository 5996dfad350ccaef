package filter

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// Type is the kind of a field's values. It mirrors entity.Type in the same
// order, so the entity package converts one into the other with a cast.
type Type uint8

// The field types; entity's Type and its constants are these.
const (
	// Text is a string, compared by code point and case-sensitively.
	Text Type = iota + 1
	// Integer is a whole number that fits in an int64.
	Integer
	// Number is a floating-point number (a double in CEL).
	Number
	// Boolean is true or false.
	Boolean
	// Timestamp is an instant.
	Timestamp
	// Date is a calendar date. CEL sees it as a timestamp at UTC midnight,
	// written date("2024-05-01").
	Date
	// UUID is a UUID, a string in CEL (its canonical lower-case text).
	UUID
	// JSON is any JSON value (a PostgreSQL json or jsonb column, MySQL's
	// JSON, a SQLite column declared JSON), dyn in CEL: a filter compares
	// one of its members, named by path (attrs.color, attrs["a-b"].c),
	// with a literal by == or !=, or tests the whole value for null.
	JSON
	// Array is a PostgreSQL array of the field's Items, a list in CEL: a
	// filter tests membership ("x" in tags) or null.
	Array
)

// String returns the type's name as errors show it: "text", "integer".
func (t Type) String() string {
	switch t {
	case Text:
		return "text"
	case Integer:
		return "integer"
	case Number:
		return "number"
	case Boolean:
		return "boolean"
	case Timestamp:
		return "timestamp"
	case Date:
		return "date"
	case UUID:
		return "uuid"
	case JSON:
		return "json"
	case Array:
		return "array"
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Engine names the SQL dialect a condition is written in. It mirrors
// entity.Engine.
type Engine string

// The engines.
const (
	SQLite     Engine = "sqlite"
	PostgreSQL Engine = "postgres"
	MySQL      Engine = "mysql" // MySQL and MariaDB
)

// Field is a filterable field: a variable of the expression.
type Field struct {
	// Name is the name the expression uses for the field (and errors
	// list). It must be a CEL identifier, or two joined by a dot for a
	// related record's field (customer.country).
	Name string
	// Type is the kind of the field's values.
	Type Type
	// Items is the type of an Array field's elements: Text, Integer,
	// Number, Boolean or UUID.
	Items Type
	// Nullable says the field may be null; only then does x == null
	// type-check (timestamps and dates always accept it).
	Nullable bool
	// NonFinite says a Number field's column may hold NaN or an infinity
	// (PostgreSQL's number types, SQLite's REAL), which the caller serves
	// as null: x == null finds them, and an ordering (x > 5) is null for
	// them, as for a null, on either side of a !. Equality needs nothing
	// more: a NaN or an infinity equals no literal, as null does not. The
	// column is compared as it is, so that an index still serves the
	// comparison. Set Nullable with it.
	NonFinite bool
}

// The default limits.
const (
	DefaultMaxLength      = 2048
	DefaultMaxDepth       = 32
	DefaultMaxComparisons = 50
	DefaultMaxListItems   = 100
)

// Limits bound what one expression may ask for. A zero field takes its
// default.
type Limits struct {
	// MaxLength is the longest expression in bytes. If zero, defaults to
	// [DefaultMaxLength].
	MaxLength int
	// MaxDepth is the deepest nesting of the expression's parentheses,
	// brackets and braces; what nests without them (a.b.c) is bounded
	// by the parser a few levels deeper. If zero, defaults to
	// [DefaultMaxDepth].
	MaxDepth int
	// MaxComparisons is the most comparisons, in tests and string
	// matches one expression may hold. If zero, defaults to
	// [DefaultMaxComparisons].
	MaxComparisons int
	// MaxListItems is the longest literal list of an in test. If zero,
	// defaults to [DefaultMaxListItems].
	MaxListItems int
}

// Env checks and translates the filters of one entity. It is built once
// per entity with [NewEnv] and is safe for concurrent use.
type Env struct {
	cel     *cel.Env
	fields  []Field
	index   map[string]int // field name to its index in fields
	limits  Limits
	omitted []string // the names of fields no expression can name
	// fieldList is the usable fields with their types, as refusals list
	// them.
	fieldList string
	cache     checkedCache
}

// NewEnv returns the environment for an entity whose filterable fields are
// fields, bounded by limits (nil for the defaults). Translate's column(i)
// refers to fields[i]. A field whose name is not a CEL identifier, or is
// one of CEL's reserved words (in, null, package, ...), cannot be written
// in an expression and is left out: [Env.Omitted] lists them. NewEnv
// fails for a name given twice or an unknown type.
func NewEnv(fields []Field, limits *Limits) (*Env, error) {
	e := &Env{fields: append([]Field(nil), fields...), index: make(map[string]int, len(fields))}
	if limits != nil {
		e.limits = *limits
	}
	e.limits.setDefaults()
	opts := []cel.EnvOption{
		cel.ClearMacros(),
		cel.CrossTypeNumericComparisons(true),
		// The nesting a reader sees is bounded by MaxDepth before
		// parsing (see shape); the parser's own recursion runs a few
		// levels deeper per parenthesis.
		cel.ParserRecursionLimit(e.limits.MaxDepth + 32),
		cel.ParserErrorRecoveryLimit(4),
		cel.ParserExpressionSizeLimit(e.limits.MaxLength),
		dateFunction(),
		lowerASCIIFunction(),
	}
	seen := make(map[string]bool, len(fields))
	var usable []Field
	for i, f := range e.fields {
		if seen[f.Name] {
			return nil, fmt.Errorf("filter: field %q appears twice", f.Name)
		}
		seen[f.Name] = true
		t, err := celType(f)
		if err != nil {
			return nil, err
		}
		if !isIdentifier(f.Name) && !isQualified(f.Name) {
			e.omitted = append(e.omitted, f.Name)
			continue
		}
		e.index[f.Name] = i
		usable = append(usable, f)
		opts = append(opts, cel.Variable(f.Name, t))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, fmt.Errorf("filter: building the environment: %w", err)
	}
	e.cel = env
	e.fieldList = listFields(usable)
	return e, nil
}

// Fields returns a copy of the environment's fields.
func (e *Env) Fields() []Field { return append([]Field(nil), e.fields...) }

// Omitted returns the names of the fields left out of the environment
// because they are not CEL identifiers or are reserved words.
func (e *Env) Omitted() []string { return append([]string(nil), e.omitted...) }

// CEL returns the underlying cel-go environment, for evaluating an
// expression the way CEL itself does (tests use it as the oracle).
func (e *Env) CEL() *cel.Env { return e.cel }

func (l *Limits) setDefaults() {
	if l.MaxLength <= 0 {
		l.MaxLength = DefaultMaxLength
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxComparisons <= 0 {
		l.MaxComparisons = DefaultMaxComparisons
	}
	if l.MaxListItems <= 0 {
		l.MaxListItems = DefaultMaxListItems
	}
}

// celType is the CEL type of a field's variable.
func celType(f Field) (*cel.Type, error) {
	var t *cel.Type
	switch f.Type {
	case Text, UUID:
		t = cel.StringType
	case Integer:
		t = cel.IntType
	case Number:
		t = cel.DoubleType
	case Boolean:
		t = cel.BoolType
	case Timestamp, Date:
		t = cel.TimestampType
	case JSON:
		return cel.DynType, nil // null is one of its values
	case Array:
		if f.Items < Text || f.Items > UUID || f.Items == Timestamp || f.Items == Date {
			return nil, fmt.Errorf("filter: array field %q has items of type %s, which filters do not take", f.Name, f.Items)
		}
		item, err := celType(Field{Name: f.Name, Type: f.Items})
		if err != nil {
			return nil, err
		}
		t = cel.ListType(item)
	default:
		return nil, fmt.Errorf("filter: field %q has unknown type %d", f.Name, uint8(f.Type))
	}
	if f.Nullable {
		t = cel.NullableType(t)
	}
	return t, nil
}

// dateFunction declares date("YYYY-MM-DD"): the timestamp of that day's
// UTC midnight.
func dateFunction() cel.EnvOption {
	return cel.Function("date",
		cel.Overload("date_string", []*cel.Type{cel.StringType}, cel.TimestampType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, ok := v.(types.String)
				if !ok {
					return types.NewErr("date: want a string")
				}
				d, err := parseDate(string(s))
				if err != nil {
					return types.NewErr("%s", err.Error())
				}
				return types.Timestamp{Time: d}
			})))
}

// lowerASCIIFunction declares s.lowerAscii(), as cel-go's strings
// extension has it: s with A to Z lowered and every other character kept.
func lowerASCIIFunction() cel.EnvOption {
	return cel.Function("lowerAscii",
		cel.MemberOverload("string_lower_ascii", []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, ok := v.(types.String)
				if !ok {
					return types.NewErr("lowerAscii: want a string")
				}
				return types.String(lowerASCII(string(s)))
			})))
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// parseDate reads a YYYY-MM-DD date as its UTC midnight.
func parseDate(s string) (time.Time, error) {
	d, err := time.ParseInLocation(time.DateOnly, s, time.UTC)
	if err != nil {
		return time.Time{}, errors.New("date: want YYYY-MM-DD, such as 2024-05-01")
	}
	return d, nil
}

// Nameable reports whether an expression can name a field called name:
// whether it is a CEL identifier and not a reserved word ("in", "null",
// "package", ...). NewEnv leaves out the fields it cannot name.
func Nameable(name string) bool { return isIdentifier(name) }

// isQualified reports whether s is two identifiers joined by a dot, the
// name of a related record's field (customer.country), which CEL
// resolves as one variable.
func isQualified(s string) bool {
	a, b, ok := strings.Cut(s, ".")
	return ok && isIdentifier(a) && isIdentifier(b)
}

// isIdentifier reports whether s is a CEL identifier that is not a
// reserved word.
func isIdentifier(s string) bool {
	if s == "" || reserved[s] {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// reserved are CEL's reserved words and literals, which cannot name a
// variable.
var reserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true,
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}

// TypeName is the field's type as refusals and descriptions name it:
// its Type's name, or "array of text" for an array.
func (f Field) TypeName() string {
	if f.Type == Array {
		return "array of " + f.Items.String()
	}
	return f.Type.String()
}
