// Package schema builds the JSON Schemas (draft 2020-12) of tool inputs and
// outputs, from Go types and their struct tags or by hand.
//
// [For] infers a schema once, at registration:
//
//	type SearchIn struct {
//		Query string `json:"query" doc:"Text to search for." minLength:"1"`
//		Limit int    `json:"limit,omitzero" doc:"At most this many." minimum:"1" maximum:"50" default:"10"`
//	}
//
//	s, err := schema.For[SearchIn](nil)
//	if err != nil {
//		return err // a tag that does not parse or apply, or a recursive type
//	}
//	data, _ := json.Marshal(s)
//	// {"type":"object","properties":{"query":{"type":"string",...
//
// # Types
//
// The schema describes the JSON that encoding/json reads and writes:
//
//   - A struct is an object whose properties are its exported fields, named
//     and ordered as encoding/json does: json tag names, json:"-" left out,
//     fields of embedded structs promoted (an embedded struct with a json
//     name is a property), with encoding/json's rules for names that
//     collide. It is closed: unknown properties are refused. A field is
//     required unless it is a pointer, promoted through an embedded
//     pointer, tagged omitempty or omitzero, or given a default; the
//     required tag overrides that. A number or boolean field tagged
//     json:",string" is a string, as encoding/json writes it.
//   - A pointer is its element's schema that also allows null.
//   - A slice or array is an array ([N]T has exactly N items); []byte is a
//     base64 string.
//   - A map is an object whose values match the element's schema.
//   - With [Options.Output] (a tool's result), a slice or map also allows
//     null, which encoding/json writes for a nil one, unless its field is
//     tagged omitempty or omitzero: encoding/json then leaves it out, so
//     it is an array or object alone, as portable clients expect.
//   - Integers are integer (unsigned ones have minimum 0), floats number,
//     bool boolean, string string, [json.Number] number.
//   - [time.Time] is a string of format date-time; other types implementing
//     [encoding.TextMarshaler] or [encoding.TextUnmarshaler] are strings.
//   - Interfaces, [json.RawMessage] and other types implementing
//     [json.Marshaler] or [json.Unmarshaler] accept any value ({}).
//   - A type implementing [SchemaProvider] describes itself; this comes
//     first.
//
// Channels, functions and complex numbers are errors.
//
// # Tags
//
// One tag per keyword, as huma does. Each applies to the field's schema;
// a tag on a type it does not fit (minLength on an int) is an error, as is
// a value that does not parse, and a tag key that is not one below but
// close to one (minlength, minLenght, mininum), which would otherwise be
// ignored. Errors are [*TagError]s naming the type,
// field and tag.
//
//	doc                           description
//	title                         title
//	minimum, maximum,             numbers and integers: a number
//	exclusiveMinimum,
//	exclusiveMaximum, multipleOf
//	minLength, maxLength          strings: a whole number
//	pattern                       strings: a regular expression that compiles
//	format                        strings: email, uri, uuid, date, date-time,
//	                              time, hostname, ipv4 or ipv6
//	minItems, maxItems            arrays: a whole number
//	uniqueItems                   arrays: true or false
//	enum                          a comma-separated list, values parsed for the
//	                              type and trimmed of spaces; on an array, the
//	                              items' values
//	default, example              a value parsed for the type: strings as they
//	                              are, numbers and booleans parsed, other types
//	                              JSON
//	required, deprecated          true or false
//
// doc, title, enum, required and default (with suggest, which only prompt
// arguments and template variables read) are the vocabulary Ferry's other
// readers of struct fields share, so a tag means the same on a tool's
// input, a prompt's arguments and a resource template's variables.
//
// A default is applied, not only published: [Validator.Validate] fills in
// the default of every absent property before the arguments are decoded,
// so a handler never re-applies it by hand, and a property with a default
// is not required. An optional object left out gets the defaults of its
// own properties (as an object holding just those), so that a nested
// struct's defaults hold too; a handler that must tell such an object's
// absence from its defaults gives it a property without one, or a default
// of its own. An implied object over 4 KiB, or one that recurs, is not
// filled in.
//
// A tag differing only in case from one of these (minlength) is an error,
// since it would otherwise be ignored. [For] reports every tag that cannot
// apply, not only the first.
//
// # Recursive types
//
// Clients reject $ref, so every schema is inlined, and a recursive type
// would never end: it is an error that names the type and the path where
// it recurs. With [Options.AllowRecursion], the recursive occurrence is
// unchecked: {"type":"object"} with the field's description.
//
// # Hand-written schemas
//
// Tools that read raw arguments build their schema from small parts:
//
//	in := schema.Object(
//		schema.Required("order_id", schema.ID("The order to cancel.")),
//		schema.Optional("reason", schema.Choice("Why.", "duplicate", "fraud", "other")),
//		schema.Optional("refund_on", schema.Date("When to refund.")),
//	)
//
// # Portability
//
// [Schema.Portable] reports what some clients refuse, such as descriptions
// over 1024 characters; servers call it at start-up. [PortableJSON] is the
// same check for a schema held as JSON, which may also hold $ref and
// boolean subschemas. Both report every problem, each with its path.
//
// # Validation
//
// [Compile] turns a schema into a [Validator], once; [Validator.Validate]
// then checks a JSON document against it without building a tree and
// without allocating when the document is valid and needs no rewriting.
// It reports every violation at once (up to [MaxErrors]), as [Errors],
// each with its path and a sentence a model can act on; its work is linear
// in the document's size:
//
//	items[2].sku: must be at most 20 characters, got 23
//
// # Coercion
//
// A model often writes "12" for 12. Under the [Unambiguous] policy (the
// default) Validate accepts what can mean one thing only: "true" and
// "false" for booleans, a numeric string for a number (or an integer when
// exact), "£1,234.00" or "1,234.50" for a number, a JSON array or object
// sent as a string ("[\"a\",\"b\"]", "{\"min\":1}") for an array or
// an object, "a, b" for a list of strings,
// and null for an optional property (read as absent); it returns the
// document rewritten with the coerced values.
// Everything else is refused with a sentence naming what was expected:
// "March 2026" for a date gets "expected a date written yyyy-MM-dd". The
// [Strict] policy coerces nothing.
package schema
