package protoschema

import (
	"encoding/json"
	"strings"
	"testing"

	"buf.build/go/protovalidate"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// at returns the subschema of doc at path: property names and the
// keywords items, additionalProperties and propertyNames, separated by
// slashes ("" is the root).
func at(t *testing.T, doc map[string]any, path string) any {
	t.Helper()
	var cur any = doc
	if path == "" {
		return cur
	}
	for _, step := range strings.Split(path, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("%s: %q is not under an object schema", path, step)
		}
		switch step {
		case "items", "additionalProperties", "propertyNames", "not", "examples":
			cur = m[step]
		default:
			props, _ := m["properties"].(map[string]any)
			cur, ok = props[step]
			if !ok {
				t.Fatalf("%s: no property %q", path, step)
			}
		}
	}
	return cur
}

func decode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return m
}

// TestMapping checks the schema of one field (or a keyword of a message)
// per mapping rule, as input or output.
func TestMapping(t *testing.T) {
	t.Parallel()
	reg := compileFiles(t)
	tests := []struct {
		name, message, path string
		output              bool
		want                string
	}{
		{"double", "Scalars", "aDouble", false, `{"type":["number","string"],"description":"A double-precision number.","pattern":"^(NaN|-?Infinity)$"}`},
		{"int32", "Scalars", "anInt32", false, `{"type":"integer"}`},
		{"uint32 is not negative", "Scalars", "aUint32", false, `{"type":"integer","minimum":0}`},
		{"int64 input is a number or a string", "Scalars", "anInt64", false, `{"type":["integer","string"],"description":"A 64-bit integer: a string in JSON.","pattern":"^-?[0-9]+$"}`},
		{"int64 output is a string", "Scalars", "anInt64", true, `{"type":"string","description":"A 64-bit integer: a string in JSON.","pattern":"^-?[0-9]+$"}`},
		{"uint64 input", "Scalars", "aUint64", false, `{"type":["integer","string"],"minimum":0,"pattern":"^[0-9]+$"}`},
		{"fixed64 output", "Scalars", "aFixed64", true, `{"type":"string","pattern":"^[0-9]+$"}`},
		{"bool", "Scalars", "aBool", false, `{"type":"boolean"}`},
		{"bytes are base64", "Scalars", "someBytes", false, `{"type":"string","pattern":"^[A-Za-z0-9+/_-]*={0,2}$","contentEncoding":"base64"}`},
		{"enum input by name", "Scalars", "color", false, `{"type":"string","enum":["COLOR_UNSPECIFIED","COLOR_RED","COLOR_GREEN"]}`},
		{"open enum output may be a number", "Scalars", "color", true, `{"anyOf":[{"type":"string","enum":["COLOR_UNSPECIFIED","COLOR_RED","COLOR_GREEN"]},{"type":"integer"}]}`},
		{"json_name", "Scalars", "otherName", false, `{"type":"string","description":"Named in JSON by its json_name."}`},
		{"message comment", "Item", "", false, `{"type":"object","description":"An item of a list.","properties":{"name":{"type":"string","description":"The item's name."},"count":{"type":"integer"}},"additionalProperties":false}`},
		{"repeated", "Collections", "tags", false, `{"type":"array","items":{"type":"string"}}`},
		{"repeated int64", "Collections", "ids/items", true, `{"type":"string","pattern":"^-?[0-9]+$"}`},
		{"map with string keys", "Collections", "totals", false, `{"type":"object","additionalProperties":{"type":["integer","string"],"pattern":"^-?[0-9]+$"}}`},
		{"map with int keys", "Collections", "byNumber/propertyNames", false, `{"pattern":"^-?[0-9]+$"}`},
		{"map with bool keys", "Collections", "byFlag/propertyNames", false, `{"enum":["true","false"]}`},
		{"map with uint64 keys", "Collections", "colors/propertyNames", false, `{"pattern":"^[0-9]+$"}`},
		{"timestamp", "WellKnown", "at", false, `{"type":"string","description":"A time in RFC 3339 form with a Z or an offset, such as 2026-07-28T09:30:00Z.","format":"date-time"}`},
		{"duration", "WellKnown", "timeout", false, `{"type":"string","description":"A duration in seconds with an \"s\" suffix, such as \"1.5s\" or \"-30s\".","pattern":"^-?[0-9]+(\\.[0-9]{1,9})?s$"}`},
		{"struct", "WellKnown", "attrs", false, `{"type":"object"}`},
		{"value is any JSON", "WellKnown", "anything", false, `{"type":["object","array","string","number","boolean","null"]}`},
		{"list value", "WellKnown", "list", false, `{"type":"array"}`},
		{"field mask", "WellKnown", "mask", false, `{"type":"string","description":"Field paths in lowerCamelCase, separated by commas, such as \"displayName,address.city\".","pattern":"^([A-Za-z][A-Za-z0-9]*(\\.[A-Za-z][A-Za-z0-9]*)*(,[A-Za-z][A-Za-z0-9]*(\\.[A-Za-z][A-Za-z0-9]*)*)*)?$"}`},
		{"int64 wrapper", "WellKnown", "wInt64", false, `{"type":["integer","string","null"],"pattern":"^-?[0-9]+$"}`},
		{"string wrapper", "WellKnown", "wString", false, `{"type":["string","null"]}`},
		{"any needs @type in input", "WellKnown", "detail", false, `{"type":"object","description":"A message of any type: \"@type\" names it, and its fields follow (or \"value\" holds a well-known type's JSON form).","properties":{"@type":{"type":"string","description":"The message's type URL, such as type.googleapis.com/google.protobuf.Duration."}},"required":["@type"]}`},
		{"empty", "WellKnown", "nothing", false, `{"type":"object","additionalProperties":false}`},
		{"null value", "WellKnown", "null", false, `{"type":"null"}`},
		{"oneofs at most one", "Choice", "not", false, `{"anyOf":[{"required":["text","number"]},{"required":["text","item"]},{"required":["number","item"]},{"required":["yes","no"]}]}`},
		{"proto3 optional is a plain property", "Choice", "note", false, `{"type":"string"}`},
		{"recursion cut", "Node", "children/items/children/items", false, `{"type":"object","description":"A test.v1.Node, which contains itself: its fields are not listed at this depth, and are checked when the tool is called."}`},
		{"mutual recursion cut", "Ping", "pong/ping/pong/ping", false, `{"type":"object","description":"A test.v1.Ping, which contains itself: its fields are not listed at this depth, and are checked when the tool is called."}`},
		{"proto2 closed enum output is names only", "Legacy", "size", true, `{"type":"string","enum":["SMALL","LARGE"],"default":"LARGE"}`},
		{"editions closed enum output is names only", "Edition", "mood", true, `{"type":"string","enum":["MOOD_CALM","MOOD_GLAD"]}`},
		{"proto2 default", "Legacy", "count", false, `{"type":["integer","string"],"pattern":"^-?[0-9]+$","default":"7"}`},
		{"predefined rule is said", "Extended", "note", false, `{"type":"string","description":"Checked when called: the rule test.v1.short."}`},
		{"any in as @type enum", "Extended", "detail/@type", false, `{"type":"string","description":"The message's type URL, such as type.googleapis.com/google.protobuf.Duration.","enum":["type.googleapis.com/test.v1.Item"]}`},
		{"deprecated", "Legacy", "label", false, `{"type":"string","default":"none","deprecated":true}`},
		{"int64 examples as strings", "ExampleRules", "big", false, `{"type":["integer","string"],"description":"Bounds apply to its value whether it is written as a number or a string.","exclusiveMinimum":0,"pattern":"^-?[0-9]+$","examples":["12","9007199254740993"]}`},
		{"enum examples by name", "ExampleRules", "color", true, `{"anyOf":[{"type":"string","enum":["COLOR_UNSPECIFIED","COLOR_RED","COLOR_GREEN"]},{"type":"integer"}],"examples":["COLOR_RED"]}`},
		{"duration examples", "ExampleRules", "wait", false, `{"type":"string","description":"A duration in seconds with an \"s\" suffix, such as \"1.5s\" or \"-30s\". Must be at least \"1s\". Must be at most \"60s\".","pattern":"^-?[0-9]+(\\.[0-9]{1,9})?s$","examples":["2.500s"]}`},
		{"bytes examples in base64", "ExampleRules", "blob/examples", false, `["AQI="]`},
		{"item examples", "ExampleRules", "tags/items/examples", false, `["red"]`},
		{"wrapper examples", "ExampleRules", "limit/examples", false, `[10]`},
		{"group by its JSON name", "Legacy", "extra", false, `{"type":"object","properties":{"level":{"type":"integer"}},"additionalProperties":false}`},
		{"wide oneof is linear", "Wide", "not", false, `{"anyOf":[{"not":{"oneOf":[{"required":["a"]},{"required":["b"]},{"required":["c"]},{"required":["d"]},{"required":["e"]},{"required":["f"]},{"required":["g"]},{"required":["h"]},{"required":["i"]},{"required":["j"]},{"not":{"anyOf":[{"required":["a"]},{"required":["b"]},{"required":["c"]},{"required":["d"]},{"required":["e"]},{"required":["f"]},{"required":["g"]},{"required":["h"]},{"required":["i"]},{"required":["j"]}]}}]}}]}`},
		{"immutable is said", "Resource", "region", false, `{"type":"string","description":"The region, fixed at creation. It cannot be changed once set."}`},
		{"output only is kept in output", "Resource", "createTime", true, `{"type":"string","description":"When it was made. A time in RFC 3339 form with a Z or an offset, such as 2026-07-28T09:30:00Z. Set by the server.","format":"date-time"}`},
		{"input only is kept in input", "Resource", "secret", false, `{"type":"string","description":"A secret sent but never returned."}`},
		{"input only is said in output", "Resource", "secret", true, `{"type":"string","description":"A secret sent but never returned. Input only: not meant to be returned."}`},

		{"min and max length", "StringRules", "minMax", false, `{"type":"string","minLength":2,"maxLength":5}`},
		{"len", "StringRules", "exact", false, `{"type":"string","minLength":3,"maxLength":3}`},
		{"pattern", "StringRules", "code", false, `{"type":"string","pattern":"^[A-Z]{2}-[0-9]{3}$"}`},
		{"prefix, suffix, contains", "StringRules", "prefixed", false, `{"type":"string","pattern":"^id\\.","allOf":[{"pattern":"\\.x$"},{"pattern":"\\+"}]}`},
		{"not contains", "StringRules", "clean", false, `{"type":"string","not":{"pattern":"bad"}}`},
		{"in", "StringRules", "size", false, `{"type":"string","enum":["S","M","L"]}`},
		{"not in", "StringRules", "notAdmin", false, `{"type":"string","not":{"enum":["admin","root"]}}`},
		{"email", "StringRules", "email", false, `{"type":"string","format":"email"}`},
		{"uuid", "StringRules", "uuid", false, `{"type":"string","pattern":"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$","format":"uuid"}`},
		{"uri", "StringRules", "uri", false, `{"type":"string","format":"uri"}`},
		{"hostname", "StringRules", "host", false, `{"type":"string","format":"hostname"}`},
		{"ip", "StringRules", "ip", false, `{"type":"string","description":"An IPv4 or IPv6 address.","anyOf":[{"format":"ipv4"},{"format":"ipv6"}]}`},
		{"ipv6", "StringRules", "ipv6", false, `{"type":"string","format":"ipv6"}`},
		{"uri ref", "StringRules", "uriRef", false, `{"type":"string","format":"uri-reference"}`},
		{"address", "StringRules", "address", false, `{"type":"string","description":"A hostname or an IP address.","anyOf":[{"format":"hostname"},{"format":"ipv4"},{"format":"ipv6"}]}`},
		{"const", "StringRules", "fixed", false, `{"type":"string","const":"fixed"}`},
		{"max bytes", "StringRules", "small", false, `{"type":"string","description":"At most 8 bytes in UTF-8.","maxLength":8}`},
		{"ignore if zero", "StringRules", "nick", false, `{"type":"string","description":"Unset or at least three characters.","anyOf":[{"const":""},{"minLength":3}]}`},
		{"ignore always", "StringRules", "ignored", false, `{"type":"string"}`},
		{"RE2-only pattern is said", "StringRules", "flagged", false, `{"type":"string","description":"Must match the RE2 pattern (?i)^yes$."}`},
		{"rules are said, not applied, in output", "StringRules", "small", true, `{"type":"string","description":"At most 8 bytes in UTF-8."}`},

		{"gte lte", "NumberRules", "percent", false, `{"type":"integer","minimum":0,"maximum":100}`},
		{"int64 bounds", "NumberRules", "big", false, `{"type":["integer","string"],"description":"Bounds apply to its value whether it is written as a number or a string.","exclusiveMinimum":-5,"exclusiveMaximum":5000000000,"pattern":"^-?[0-9]+$"}`},
		{"numeric in", "NumberRules", "odd", false, `{"type":"integer","minimum":0,"enum":[1,3,5]}`},
		{"uint64 const in both forms", "NumberRules", "answer", false, `{"type":["integer","string"],"minimum":0,"pattern":"^[0-9]+$","enum":[42,"42"]}`},
		{"double range is finite", "NumberRules", "ratio", false, `{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`},
		{"float lower bound allows Infinity", "NumberRules", "temp", false, `{"type":["number","string"],"minimum":-40,"pattern":"^(NaN|-?Infinity)$","allOf":[{"pattern":"^Infinity$"}]}`},
		{"numeric not in", "NumberRules", "notZero", false, `{"type":"integer","not":{"enum":[0,13]}}`},
		{"outside a range", "NumberRules", "outside", false, `{"type":"integer","anyOf":[{"exclusiveMinimum":10},{"exclusiveMaximum":5}]}`},
		{"finite", "NumberRules", "finite", false, `{"type":"number"}`},
		{"cel is said", "NumberRules", "even", false, `{"type":"integer","description":"An even number. Checked when called: must be even."}`},
		{"wrapper rules", "NumberRules", "wSmall", false, `{"type":["integer","null"],"maximum":10}`},

		{"repeated rules", "CollectionRules", "tags", false, `{"type":"array","items":{"type":"string","minLength":1,"maxLength":4},"minItems":1,"maxItems":3,"uniqueItems":true}`},
		{"map rules", "CollectionRules", "scores", false, `{"type":"object","additionalProperties":{"type":"integer","minimum":0},"propertyNames":{"minLength":2,"maxLength":3},"minProperties":1,"maxProperties":2}`},
		{"bytes length", "CollectionRules", "blob", false, `{"type":"string","description":"At least 1 byte. At most 6 bytes.","minLength":2,"maxLength":8,"pattern":"^[A-Za-z0-9+/_-]*={0,2}$","contentEncoding":"base64"}`},
		{"enum defined only and not in", "CollectionRules", "color", false, `{"type":"string","enum":["COLOR_RED","COLOR_GREEN"]}`},
		{"enum in", "CollectionRules", "primary", false, `{"type":"string","enum":["COLOR_RED"]}`},
		{"item rule sentences are on the item", "CollectionRules", "numbers/items", false, `{"type":["integer","string"],"description":"Bounds apply to its value whether it is written as a number or a string.","minimum":1,"pattern":"^-?[0-9]+$"}`},
		{"required string is not empty", "CollectionRules", "name", false, `{"type":"string","minLength":1}`},
		{"required message", "CollectionRules", "item", false, `{"type":"object","description":"An item of a list.","properties":{"name":{"type":"string","description":"The item's name."},"count":{"type":"integer"}},"additionalProperties":false}`},
		{"oneof required is exactly one", "CollectionRules", "not", false, `{"anyOf":[{"required":["user","group"]},{"not":{"anyOf":[{"required":["user"]},{"required":["group"]}]}}]}`},
		{"message oneof rule", "DescribedRules", "not", false, `{"anyOf":[{"required":["email","phone"]},{"not":{"anyOf":[{"required":["email"]},{"required":["phone"]}]}}]}`},
		{"duration rules are said", "DescribedRules", "ttl", false, `{"type":"string","description":"A duration in seconds with an \"s\" suffix, such as \"1.5s\" or \"-30s\". Must be at least \"1s\". Must be at most \"3600s\".","pattern":"^-?[0-9]+(\\.[0-9]{1,9})?s$"}`},
		{"cel expression is said", "DescribedRules", "note", false, `{"type":"string","description":"Checked when called: size(this) < 10."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := schemaOf(t, message(t, reg, tt.message), tt.output)
			var want any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatalf("bad want: %v", err)
			}
			sub := at(t, got, tt.path)
			if m, ok := sub.(map[string]any); ok && !strings.Contains(tt.want, `"examples"`) {
				delete(m, "examples") // checked by the cases that list them
			}
			if diff := cmp.Diff(want, sub); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", tt.message, tt.path, diff)
			}
		})
	}
}

func schemaOf(t *testing.T, md protoreflect.MessageDescriptor, output bool) map[string]any {
	t.Helper()
	build := Input
	if output {
		build = Output
	}
	data, err := build(md)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, data)
}

// TestRequired checks the required lists: field behaviour REQUIRED,
// buf.validate required, fields whose zero value breaks their rules; none
// in outputs; OUTPUT_ONLY fields left out of inputs.
func TestRequired(t *testing.T) {
	t.Parallel()
	reg := compileFiles(t)
	tests := []struct {
		message string
		output  bool
		want    []string
		absent  []string
	}{
		{"Resource", false, []string{"owner", "region", "nested"}, []string{"createTime"}},
		{"Resource", true, nil, nil},
		{"CollectionRules", false, []string{"tags", "scores", "blob", "key", "color", "primary", "item", "name"}, nil},
		{"NumberRules", false, []string{"odd", "answer", "ratio", "notZero", "ids", "neg"}, nil},
		{"StringRules", false, []string{"minMax", "exact", "code", "prefixed", "size", "email", "uuid", "uri", "host", "ip", "ipv4", "ipv6", "address", "fixed", "tuuid", "flagged", "hostPort"}, nil},
		{"StringRules", true, nil, nil},
		{"Scalars", false, nil, nil},
		{"Legacy", false, []string{"id"}, nil},
		{"Edition", false, []string{"code"}, nil},
	}
	for _, tt := range tests {
		got := schemaOf(t, message(t, reg, tt.message), tt.output)
		var req []string
		for _, r := range asList(got["required"]) {
			req = append(req, r.(string))
		}
		if diff := cmp.Diff(tt.want, req); diff != "" {
			t.Errorf("%s output=%v required (-want +got):\n%s", tt.message, tt.output, diff)
		}
		props, _ := got["properties"].(map[string]any)
		for _, a := range tt.absent {
			if _, ok := props[a]; ok {
				t.Errorf("%s output=%v: property %q should be left out", tt.message, tt.output, a)
			}
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestMessageRules checks JSON documents against the input schemas of
// messages with oneofs, oneof rules and extension ranges, where the rule
// is between members rather than in one value.
func TestMessageRules(t *testing.T) {
	t.Parallel()
	reg := compileFiles(t)
	tests := []struct {
		message, doc string
		ok           bool
	}{
		{"Choice", `{}`, true},
		{"Choice", `{"text":"a","yes":true}`, true},
		{"Choice", `{"text":"a","number":1}`, false},
		{"Choice", `{"yes":true,"no":false}`, false},
		{"Wide", `{}`, true},
		{"Wide", `{"c":"x"}`, true},
		{"Wide", `{"a":"x","j":"y"}`, false},
		{"Wide", `{"a":"x","b":"y","c":"z"}`, false},
		{"CollectionRules", `{"tags":["a"],"scores":{"ab":1},"blob":"AA==","key":"AAAAAA==","color":"COLOR_RED","primary":"COLOR_RED","item":{},"name":"n","user":"u"}`, true},
		{"CollectionRules", `{"tags":["a"],"scores":{"ab":1},"blob":"AA==","key":"AAAAAA==","color":"COLOR_RED","primary":"COLOR_RED","item":{},"name":"n"}`, false},
		{"CollectionRules", `{"tags":["a"],"scores":{"ab":1},"blob":"AA==","key":"AAAAAA==","color":"COLOR_RED","primary":"COLOR_RED","item":{},"name":"n","user":"u","group":"g"}`, false},
		{"CollectionRules", `{"tags":["a"],"scores":{"ab":1},"blob":"AA==","key":"AAAAAA==","color":"COLOR_RED","primary":"COLOR_RED","item":{},"name":"","user":"u"}`, false},
		{"RequiredRules", `{"qty":1,"big":"2","agree":true,"tone":"COLOR_RED","notes":["n"],"labels":{"a":"b"},"data":"AA==","zeroOk":0}`, true},
		{"RequiredRules", `{"qty":0,"big":"2","agree":true,"tone":"COLOR_RED","notes":["n"],"labels":{"a":"b"},"data":"AA==","zeroOk":0}`, false},
		{"RequiredRules", `{"qty":1,"big":"0","agree":true,"tone":"COLOR_RED","notes":["n"],"labels":{"a":"b"},"data":"AA==","zeroOk":0}`, false},
		{"RequiredRules", `{"qty":1,"big":0,"agree":true,"tone":"COLOR_RED","notes":["n"],"labels":{"a":"b"},"data":"AA==","zeroOk":0}`, false},
		{"RequiredRules", `{"qty":1,"big":"2","agree":false,"tone":"COLOR_RED","notes":["n"],"labels":{"a":"b"},"data":"AA==","zeroOk":0}`, false},
		{"RequiredRules", `{"qty":1,"big":"2","agree":true,"tone":"COLOR_UNSPECIFIED","notes":["n"],"labels":{"a":"b"},"data":"AA==","zeroOk":0}`, false},
		{"RequiredRules", `{"qty":1,"big":"2","agree":true,"tone":"COLOR_RED","notes":[],"labels":{"a":"b"},"data":"AA==","zeroOk":0}`, false},
		{"RequiredRules", `{"qty":1,"big":"2","agree":true,"tone":"COLOR_RED","notes":["n"],"labels":{},"data":"AA==","zeroOk":0}`, false},
		{"RequiredRules", `{"qty":1,"big":"2","agree":true,"tone":"COLOR_RED","notes":["n"],"labels":{"a":"b"},"data":"","zeroOk":0}`, false},
		{"RequiredRules", `{"qty":1,"big":"2","agree":true,"tone":"COLOR_RED","notes":["n"],"labels":{"a":"b"},"data":"AA=="}`, false},
		{"Legacy", `{"id":"x","[test.v1.tag]":"t"}`, true},
		{"Legacy", `{"size":"SMALL"}`, false},
		{"Scalars", `{"unknown":1}`, false},
		{"Scalars", `{"anInt64":"12","aUint64":12,"aDouble":"NaN","aFloat":1.5,"someBytes":"AQID"}`, true},
		{"Scalars", `{"anInt64":"1.5"}`, false},
		{"Scalars", `{"aDouble":"1.5"}`, false},
		{"Scalars", `{"color":1}`, false},
	}
	// Where the schema is stricter than protojson, by choice: unknown
	// members, numbers in strings, enum numbers.
	stricter := map[string]bool{`{"unknown":1}`: true, `{"anInt64":"1.5"}`: true, `{"aDouble":"1.5"}`: true, `{"color":1}`: true}
	v, err := protovalidate.New(protovalidate.WithExtensionTypeResolver(dynamicpb.NewTypes(reg)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		md := message(t, reg, tt.message)
		data, err := Input(md)
		if err != nil {
			t.Fatal(err)
		}
		err = validates(compileSchema(t, data), []byte(tt.doc))
		if (err == nil) != tt.ok {
			t.Errorf("%s %s: got %v, want ok=%v", tt.message, tt.doc, err, tt.ok)
		}
		if stricter[tt.doc] {
			continue
		}
		// Elsewhere the schema says what the call would: protojson's
		// strict decoder, then protovalidate.
		m := dynamicpb.NewMessage(md)
		runtimeErr := protojson.UnmarshalOptions{Resolver: dynamicpb.NewTypes(reg)}.Unmarshal([]byte(tt.doc), m)
		if runtimeErr == nil {
			runtimeErr = v.Validate(m)
		}
		if (runtimeErr == nil) != tt.ok {
			t.Errorf("%s %s: protojson and protovalidate say %v, the test wants ok=%v", tt.message, tt.doc, runtimeErr, tt.ok)
		}
	}
}
