package protomcp

import (
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/protomcp/internal/testservice"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

func everything(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	files, _, err := testservice.Files(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	d, err := files.FindDescriptorByName("shop.v1.Everything")
	if err != nil {
		t.Fatal(err)
	}
	return d.(protoreflect.MessageDescriptor)
}

func TestDecodeAcceptsWhatProtojsonAccepts(t *testing.T) {
	md := everything(t)
	dec := testDecoder(t, md)
	for _, args := range []string{
		`{}`,
		`{"i64":"-9223372036854775808","u64":"18446744073709551615","u32":4294967295}`,
		`{"i64":12,"d":"NaN","f":"-Infinity","b":false,"raw":"aGVsbG8="}`,
		`{"byInt":{"-3":"a","7":"b"},"byBool":{"true":"y"},"linesById":{"18446744073709551615":{"sku":"ABC"}}}`,
		`{"anyValue":null,"object":{"a":[1,{"b":null}]},"wait":"1.5s","maybe":3,"mask":"a.b,c"}`,
		`{"child":{"child":{"i64":"1"}},"kinds":["KIND_BOOK",2,1e0,1.0,-0]}`,
		`{"by_int":{"1":"proto name"},"any_value":{"x":1}}`,
		`{"i64":null,"child":null}`,
		`{"raw":"aGVsbG8","f":1e-50,"d":"1e-400","u64":"1e3"}`,
		`{"raw":"a-_b","byInt":{"01":"a"}}`,
		`{"maybe":"3","wait":"-0.5s","mask":"","object":{}}`,
		`{"maybe":1e0,"child":{"maybe":-2147483648}}`,
	} {
		m := dynamicpb.NewMessage(md)
		if errs := dec.decode([]byte(args), m); len(errs) > 0 {
			t.Errorf("%s: %v", args, errs)
			continue
		}
		if err := (protojson.UnmarshalOptions{}).Unmarshal([]byte(args), dynamicpb.NewMessage(md)); err != nil {
			t.Errorf("%s: protojson refuses it: %v", args, err)
		}
		// decode walks a document only when protojson refuses it: with one
		// unknown property added, the walk must find that and nothing else.
		withUnknown := strings.TrimSuffix(args, "}")
		if withUnknown != "{" {
			withUnknown += ","
		}
		withUnknown += `"zz":1}`
		errs := dec.decode([]byte(withUnknown), dynamicpb.NewMessage(md))
		if len(errs) != 1 || errs[0].Path != "zz" {
			t.Errorf("%s: the walk finds %v, want only zz", withUnknown, errs)
		}
	}
}

func TestDecodeRefusesWithPaths(t *testing.T) {
	md := everything(t)
	dec := testDecoder(t, md)
	for args, want := range map[string]string{
		`{"u64":"-1"}`:                                `u64: must be between 0 and 18446744073709551615, got "-1"`,
		`{"u64":"18446744073709551616"}`:              `u64: must be between 0 and 18446744073709551615`,
		`{"i64":"-9223372036854775809"}`:              `i64: must be between -9223372036854775808 and 9223372036854775807`,
		`{"u32":-1}`:                                  `u32: must be between 0 and 4294967295, got -1`,
		`{"d":"lots"}`:                                `d: must be a number, got "lots"`,
		`{"b":"true"}`:                                `b: must be a boolean, got "true"`,
		`{"raw":5}`:                                   `raw: must be a string (base64), got 5`,
		`{"byInt":{"x":"a"}}`:                         `byInt.x: is not allowed: the keys of this map are integers from -2147483648 to 2147483647`,
		`{"byBool":{"yes":"a"}}`:                      `byBool.yes: is not allowed: the keys of this map are true or false`,
		`{"linesById":{"-1":{}}}`:                     `linesById.-1: is not allowed: the keys of this map are integers of at least 0`,
		`{"linesById":{"1":{"skew":1}}}`:              `linesById.1.skew: is not allowed: unknown property "skew"; known properties: sku, quantity`,
		`{"linesById":{"1":null}}`:                    `linesById.1: must not be null`,
		`{"wait":"forever"}`:                          `wait: invalid google.protobuf.Duration value "forever"`,
		`{"child":{"child":{"kinds":["KIND_NOPE"]}}}`: `child.child.kinds[0]: must be one of: "KIND_UNSPECIFIED", "KIND_BOOK", "KIND_TOOL", got "KIND_NOPE"`,
		`{"kinds":"KIND_BOOK"}`:                       `kinds: must be an array, got "KIND_BOOK"`,
		`{"child":[]}`:                                `child: must be an object, got []`,
		`[1]`:                                         `must be an object, got [1]`,
		`{"i64":`:                                     `arguments are not valid JSON`,
		`{"child":{"f":1e39}}`:                        `child.f: must be between -3.4028235e+38 and 3.4028235e+38, got 1e39`,
		`{"child":{"d":1e400}}`:                       `child.d: must be between -1.7976931348623157e+308 and`,
		`{"child":{"raw":"!!!"}}`:                     `child.raw: must be base64 (standard or URL-safe), got "!!!"`,
		`{"child":{"u32":"01"}}`:                      `child.u32: must be an integer, got "01"`,
		`{"child":{"d":"inf"}}`:                       `child.d: must be a number, got "inf"`,
		`{"wait":{"seconds":1}}`:                      `wait: must be a string of seconds such as "1.5s", got {"seconds":1}`,
		`{"mask":["a"]}`:                              `mask: must be a string of comma-separated field paths such as "a.b,c", got ["a"]`,
		`{"object":[[1]]}`:                            `object: must be an object, got [[1]]`,
		`{"packed":"x"}`:                              `packed: must be an object with an "@type", got "x"`,
		`{"maybe":{"value":3}}`:                       `maybe: must be an integer, got {"value":3}`,
		`{"maybe":"3.5"}`:                             `maybe: must be an integer, got "3.5"`,
		`{"maybe":4294967296}`:                        `maybe: must be between -2147483648 and 2147483647, got 4294967296`,
	} {
		errs := dec.decode([]byte(args), dynamicpb.NewMessage(md))
		if len(errs) == 0 || !strings.Contains(errs.Error(), want) {
			t.Errorf("%s: got %v, want %q", args, errs, want)
		}
	}
}

func TestDecodeBoundsTheNesting(t *testing.T) {
	md := everything(t)
	args := strings.Repeat(`{"child":`, maxDepth+5) + `{}` + strings.Repeat(`}`, maxDepth+5)
	errs := testDecoder(t, md).decode([]byte(args), dynamicpb.NewMessage(md))
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "nested more than") {
		t.Errorf("got %v", errs)
	}
}

// FuzzDecode checks that no argument document panics the decoder, and that
// one it accepts is a message protojson reads the same way.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{`{}`, `{"i64":"1","byInt":{"2":"x"},"child":{"kinds":["KIND_BOOK"]}}`, `{"wait":"1s","object":{"a":null}}`,
		`{"linesById":{"1":{"sku":"A","quantity":"1e2"}}}`, `{"u64":-0}`, `[]`, `null`, `{"anyValue":[1,"a",{}]}`} {
		f.Add(seed)
	}
	files, _, err := testservice.Files(f.Context())
	if err != nil {
		f.Fatal(err)
	}
	d, err := files.FindDescriptorByName("shop.v1.Everything")
	if err != nil {
		f.Fatal(err)
	}
	md := d.(protoreflect.MessageDescriptor)
	dec := testDecoder(f, md)
	f.Fuzz(func(t *testing.T, args string) {
		m := dynamicpb.NewMessage(md)
		if errs := dec.decode([]byte(args), m); len(errs) > 0 {
			for _, e := range errs {
				if e.Message == "" {
					t.Fatalf("%s: an error without a message", args)
				}
			}
		}
	})
}

func TestDecodeListsProblemsInDocumentOrder(t *testing.T) {
	md := everything(t)
	errs := testDecoder(t, md).decode([]byte(`{"zeta":1,"child":{"b":"no","u32":-1},"alpha":2,"b":true,"b":false,"byInt":{"1":"a","1":"b"}}`), dynamicpb.NewMessage(md))
	var got []string
	for _, e := range errs {
		got = append(got, e.Path)
	}
	want := []string{"zeta", "child.b", "child.u32", "alpha", "b", "byInt.1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("paths %v, want %v:\n%v", got, want, errs)
	}
	if !strings.Contains(errs.Error(), `b: is not allowed: the field is already given as "b"`) || !strings.Contains(errs.Error(), "byInt.1: is not allowed: the key is given twice") {
		t.Errorf("got %v", errs)
	}
	errs = testDecoder(t, md).decode([]byte(`{"byInt":{},"by_int":{}}`), dynamicpb.NewMessage(md))
	if len(errs) != 1 || errs[0].Error() != `by_int: is not allowed: the field is already given as "byInt"` {
		t.Errorf("a field by both its names: got %v", errs)
	}
}

// testDecoder returns the decoder AddService would build for md.
func testDecoder(t testing.TB, md protoreflect.MessageDescriptor) *decoder {
	t.Helper()
	ext, err := newExtensionResolver(md.ParentFile())
	if err != nil {
		t.Fatal(err)
	}
	return newDecoder(md, newTypeResolver(md.ParentFile(), protoregistry.GlobalTypes, ext))
}

// An Any may hold the messages the service's .proto files declare, known
// only at run time too, and no other type linked into the binary.
func TestDecodeResolvesOnlyTheDeclaredAnyTypes(t *testing.T) {
	md := everything(t)
	dec := testDecoder(t, md)
	for _, args := range []string{
		`{"packed":{"@type":"type.googleapis.com/shop.v1.Line","sku":"ABC"}}`,
		`{"packed":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s"}}`,
	} {
		m := dynamicpb.NewMessage(md)
		if errs := dec.decode([]byte(args), m); len(errs) > 0 {
			t.Errorf("%s: %v", args, errs)
		}
	}
	for _, typ := range []string{"google.protobuf.FileDescriptorProto", "buf.validate.FieldRules", "ferry.v1.ToolOptions"} {
		args := `{"packed":{"@type":"type.googleapis.com/` + typ + `"}}`
		errs := dec.decode([]byte(args), dynamicpb.NewMessage(md))
		want := `packed: unable to resolve "type.googleapis.com/` + typ + `": "the service's .proto files declare no such message"`
		if len(errs) != 1 || errs[0].Error() != want {
			t.Errorf("%s: got %v, want %s", args, errs, want)
		}
	}
}

// Values with a JSON form of their own (Struct, Value, ListValue, Any)
// are bounded as messages are, whatever their depth, and the refusal says
// where.
func TestDecodeBoundsTheNestingOfWellKnownTypes(t *testing.T) {
	md := everything(t)
	dec := testDecoder(t, md)
	n := 100_000
	anyNest := strings.Repeat(`{"@type":"type.googleapis.com/google.protobuf.Any","value":`, 200) + `{"@type":"type.googleapis.com/shop.v1.Line"}` + strings.Repeat(`}`, 200)
	for name, args := range map[string]string{
		"struct": `{"object":` + strings.Repeat(`{"a":`, n) + `1` + strings.Repeat(`}`, n) + `}`,
		"value":  `{"anyValue":` + strings.Repeat(`[`, n) + strings.Repeat(`]`, n) + `}`,
		"any":    `{"packed":` + anyNest + `}`,
	} {
		errs := dec.decode([]byte(args), dynamicpb.NewMessage(md))
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Path, strings.SplitN(strings.TrimPrefix(args, `{"`), `"`, 2)[0]) {
			t.Errorf("%s: got %v", name, errs)
		}
	}
}

// A string escape that is not a character (a lone UTF-16 surrogate) is
// refused with a sentence that says so, not protojson's "unexpected EOF",
// and so is a string that is not UTF-8.
func TestDecodeExplainsALoneSurrogate(t *testing.T) {
	md := everything(t)
	for args, want := range map[string]string{
		`{"names":["\ud800"]}`:     `arguments: a string holds a \u escape that is not a character (a lone UTF-16 surrogate)`,
		`{"names":["a\ud800b"]}`:   `arguments: a string holds a \u escape that is not a character (a lone UTF-16 surrogate)`,
		"{\"names\":[\"a\xffb\"]}": "arguments: a string is not valid UTF-8",
	} {
		errs := testDecoder(t, md).decode([]byte(args), dynamicpb.NewMessage(md))
		if len(errs) != 1 || errs[0].Error() != want {
			t.Errorf("%s: got %v, want %s", args, errs, want)
		}
	}
}
