// Package protoschema maps protobuf message descriptors to JSON Schemas
// (draft 2020-12) in the protojson mapping: the schemas of a tool's
// arguments ([Input]) and of its structured result ([Output]).
//
//	in, err := protoschema.Input(method.Input())   // what a client may send
//	out, err := protoschema.Output(method.Output()) // what protojson writes
//
// Every schema passes the checks Ferry runs at start-up: no $ref (nested
// messages are inline), no boolean subschemas but additionalProperties
// false, no description over 1024 characters, and a root of type object.
// Input and Output are safe for concurrent use; they read the descriptor
// and build a new schema on every call.
//
// # Fields
//
// Properties are named by their JSON names (json_name, lowerCamelCase by
// default), in declaration order. protojson also reads proto names, but a
// schema lists one name per field. Messages are closed
// (additionalProperties false), as protojson's strict decoder refuses
// unknown fields, except messages with extension ranges, whose extensions
// protojson writes as "[full.name]" members.
//
//   - bool, string: boolean, string.
//   - int32, sint32, sfixed32: integer; uint32, fixed32: integer with
//     minimum 0.
//   - 64-bit integers: protojson writes a string and reads a number or a
//     string. An input accepts both, {"type":["integer","string"]} with a
//     pattern for the digits; an output is a string.
//   - float, double: a number, or one of the strings "NaN", "Infinity" and
//     "-Infinity".
//   - bytes: a base64 string (contentEncoding base64).
//   - enums: by name. protojson also reads numbers; an input lists the
//     names only. The output of an open enum (proto3) may also be an
//     integer, which protojson writes for a value the descriptor does not
//     name; a closed one (proto2) cannot hold such a value.
//   - repeated: array; map: object with additionalProperties, and for
//     integer and bool keys a propertyNames pattern or enum.
//   - proto3 optional: the property is there or not, as for any field;
//     the zero value of an optional field is written when set.
//   - proto2 required labels are required in inputs (protojson refuses a
//     message without them); explicit defaults are the default keyword;
//     deprecated fields carry deprecated true.
//
// # Well-known types
//
// Timestamp is an RFC 3339 string (format date-time); Duration a string
// such as "1.5s" (a pattern); Struct an object; Value any JSON value (the
// six types listed); ListValue an array; FieldMask a string of
// comma-separated lowerCamelCase paths; the wrappers are the wrapped type
// or null; Any an object whose "@type" (required in inputs) names the type;
// Empty an object with no properties; NullValue null.
//
// # Oneofs
//
// protojson refuses two members of a oneof. A schema says "at most one of"
// with one not over an anyOf of the pairs of members that may not be set
// together; a oneof with (buf.validate.oneof).required, and a
// message-level (buf.validate.message).oneof rule, add "none of them" to
// what is banned. Groups of more than eight members use a linear form (a
// oneOf over "only this member" and "none") instead of pairs. The rule is
// also said in the message's description. Only inputs carry the keyword:
// the encoder never writes two members. No anyOf, allOf or oneOf appears at
// the root of a schema, which some clients refuse.
//
// # Recursion and size
//
// A message that contains itself, directly or through others, is expanded
// [Options.Recursion] times inside itself (once by default); the next
// occurrence is an open object whose description says it was cut. Beyond
// [Options.MaxDepth] nested messages, or once the schema holds
// [Options.MaxNodes] subschemas, messages are cut the same way. A cut
// value is still checked when the tool is called, by protojson and
// protovalidate.
//
// # Descriptions
//
// A message's leading comment (or else its trailing one) from the file's
// source info is the schema's description, and a field's is its
// property's; descriptors without source info (a FileDescriptorSet built
// without --include_source_info, reflection) have none.
// [Options.Description] replaces the source. Sentences for rules without a
// keyword follow the comment, and the whole is cut to 1024 characters.
//
// # google.api.field_behavior
//
// REQUIRED fields are required in inputs. OUTPUT_ONLY fields are left out
// of inputs and kept in outputs, with "Set by the server.". INPUT_ONLY
// fields are kept in outputs too (protojson writes what is set), with a
// sentence saying so; IMMUTABLE is said in the input's description; the
// other behaviours change nothing.
//
// # buf.validate
//
// Rules are read with protovalidate's resolvers and become keywords in
// inputs:
//
//   - string: min_len, max_len and len as minLength and maxLength (JSON
//     Schema and protovalidate both count characters); min_bytes,
//     max_bytes and len_bytes as loose character bounds plus a sentence;
//     pattern (when RE2 and ECMA-262 read it alike; otherwise a sentence),
//     prefix, suffix and contains as patterns; not_contains as not
//     pattern; const; in as enum and not_in as not enum; email, hostname,
//     ipv4, ipv6, uri and uri_ref as formats; ip and address as an anyOf of
//     formats; uuid as format and pattern, tuuid and ulid as patterns;
//     the other well-known forms as sentences.
//   - numbers: gt, gte, lt and lte as exclusiveMinimum, minimum,
//     exclusiveMaximum and maximum (a lower bound above the upper one, which
//     protovalidate reads as "outside the range", as an anyOf); const; in
//     and not_in. A bounded floating value is a number, or only the
//     infinity its bounds allow; finite makes it a number. For 64-bit
//     integers the keywords check the number form (const and in list both
//     forms).
//   - bytes: lengths as bounds on the base64 length plus a sentence; in
//     and not_in over base64; the others as sentences.
//   - enums: const, in and not_in narrow the names; defined_only needs
//     nothing, as inputs list only defined names.
//   - repeated: min_items, max_items, unique as minItems, maxItems,
//     uniqueItems, and items rules on the items; map: min_pairs and
//     max_pairs as minProperties and maxProperties, keys rules on
//     propertyNames (string rules; numeric ones as a sentence), values
//     rules on the values.
//   - required: the field is required, and for a field without presence
//     its zero value is refused (minLength or minItems 1, not 0, true for
//     a bool), since protojson reads the zero value as unset. A field
//     without presence whose zero
//     value breaks its rules (min_len 1, gt 0, min_items 1, a CEL rule) is
//     required too, since an absent field is its zero value to
//     protovalidate; protovalidate itself is asked, with an empty message.
//   - ignore: IGNORE_ALWAYS drops the rules; IGNORE_IF_ZERO_VALUE puts the
//     keywords in an anyOf beside the zero value.
//   - example values of a rule are the examples keyword, in protojson form
//     (in outputs too).
//   - Timestamp, Duration, FieldMask and Any rules, and CEL rules of
//     fields and messages, have no keyword: each is a sentence in the
//     description ("Checked when called: …", with the rule's message or
//     else its expression). protovalidate enforces them when the tool is
//     called.
//
// Outputs carry no rule keywords, only the sentences: a server does not
// validate its responses, and a client that checks structured content
// against the output schema must not refuse a response for a rule the
// server broke. Rules that do not fit their field's type are an error.
package protoschema
