package protoschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"buf.build/go/protovalidate"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// compileSchema compiles a generated schema with a full JSON Schema
// 2020-12 validator that asserts formats and base64 content.
func compileSchema(t *testing.T, data []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.AssertContent()
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///schema.json")
	if err != nil {
		t.Fatalf("compiling the schema: %v\n%s", err, data)
	}
	return s
}

// validates reports whether the JSON data fits s, and why not.
func validates(s *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// propertyFixture is what the property tests share.
type propertyFixture struct {
	reg       *protoregistry.Files
	types     *dynamicpb.Types
	validator protovalidate.Validator
}

func newFixture(t *testing.T) *propertyFixture {
	reg := compileFiles(t)
	types := dynamicpb.NewTypes(reg)
	v, err := protovalidate.New(protovalidate.WithExtensionTypeResolver(types)) // predefined rules
	if err != nil {
		t.Fatal(err)
	}
	return &propertyFixture{reg: reg, types: types, validator: v}
}

func (f *propertyFixture) marshal(t *testing.T, m *dynamicpb.Message, o protojson.MarshalOptions) []byte {
	t.Helper()
	o.Resolver = f.types
	data, err := o.Marshal(m)
	if err != nil {
		t.Fatalf("protojson: %v", err)
	}
	return data
}

// valid draws random messages of md in mode m until one passes
// protovalidate; it returns nil after 50 tries.
func (f *propertyFixture) valid(g *gen, md protoreflect.MessageDescriptor) *dynamicpb.Message {
	for range 50 {
		m := g.message(md, 0)
		if f.validator.Validate(m) == nil {
			return m
		}
	}
	return nil
}

// TestPropertyValidMessagesFit draws random messages of every test message
// type that protovalidate accepts, marshals them with protojson and checks
// that they fit the generated schemas: the input schema with protojson's
// default options, the output schema with the defaults and with
// EmitDefaultValues.
func TestPropertyValidMessagesFit(t *testing.T) {
	f := newFixture(t)
	item := message(t, f.reg, "Item")
	draws := 150
	if raceEnabled || testing.Short() {
		draws = 30
	}
	f.reg.RangeFilesByPackage("test.v1", func(fd protoreflect.FileDescriptor) bool {
		msgs := fd.Messages()
		for i := range msgs.Len() {
			md := msgs.Get(i)
			t.Run(string(md.Name()), func(t *testing.T) {
				for _, m := range []mode{input, output} {
					build := Input
					if m == output {
						build = Output
					}
					data, err := build(md)
					if err != nil {
						t.Fatal(err)
					}
					s := compileSchema(t, data)
					g := newGen(uint64(len(md.FullName()))*7919+uint64(m), m, item)
					passed := 0
					for range draws {
						msg := f.valid(g, md)
						if msg == nil {
							continue
						}
						passed++
						opts := []protojson.MarshalOptions{{}}
						if m == output {
							opts = append(opts, protojson.MarshalOptions{EmitDefaultValues: true})
						}
						for _, o := range opts {
							js := f.marshal(t, msg, o)
							if err := validates(s, js); err != nil {
								t.Fatalf("mode %d, %+v: a valid message does not fit its schema:\n%s\n%v", m, o, js, err)
							}
						}
					}
					// A generator that cannot make valid messages would
					// make this test pass for nothing.
					if passed < draws*8/10 {
						t.Errorf("mode %d: only %d of %d draws made a valid message", m, passed, draws)
					}
				}
			})
		}
		return true
	})
}

// breakage sets one field of a valid message to a value protovalidate
// rejects. number rewrites the field's JSON string as a number: a 64-bit
// bound is a keyword on the number form only.
type breakage struct {
	message, field string
	set            func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor)
	number         bool
}

func setValue(v any) func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
	return func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
		m.Set(fd, protoreflect.ValueOf(v))
	}
}

func setList[T any](vs ...T) func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
	return func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
		l := m.NewField(fd).List()
		for _, v := range vs {
			l.Append(protoreflect.ValueOf(v))
		}
		m.Set(fd, protoreflect.ValueOfList(l))
	}
}

func setMap(kv map[string]int32) func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
	return func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
		mp := m.NewField(fd).Map()
		for k, v := range kv {
			mp.Set(protoreflect.ValueOfString(k).MapKey(), protoreflect.ValueOfInt32(v))
		}
		m.Set(fd, protoreflect.ValueOfMap(mp))
	}
}

func clearField(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) { m.Clear(fd) }

// TestPropertyBrokenRulesAreRefused breaks one rule of random valid
// messages at a time, checks that protovalidate rejects the message, and
// that the input schema refuses its JSON: every rule listed here has a
// schema keyword.
func TestPropertyBrokenRulesAreRefused(t *testing.T) {
	f := newFixture(t)
	item := message(t, f.reg, "Item")
	nan := func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
		m.Set(fd, protoreflect.ValueOfFloat64(nanValue()))
	}
	tests := []breakage{
		{"StringRules", "min_max", setValue("abcdef"), false},
		{"StringRules", "min_max", setValue("é"), false},
		{"StringRules", "exact", setValue("日本"), false},
		{"StringRules", "code", setValue("ab-123"), false},
		{"StringRules", "prefixed", setValue("xd.a+b.x"), false},
		{"StringRules", "prefixed", setValue("id.ab.x"), false},
		{"StringRules", "clean", setValue("a bad word"), false},
		{"StringRules", "size", setValue("XL"), false},
		{"StringRules", "not_admin", setValue("root"), false},
		{"StringRules", "email", setValue("not an email"), false},
		{"StringRules", "uuid", setValue("123e4567-e89b-12d3-a456-42661417400"), false},
		{"StringRules", "uri", setValue("no scheme"), false},
		{"StringRules", "host", setValue("-bad-.example"), false},
		{"StringRules", "ip", setValue("999.1.1.1"), false},
		{"StringRules", "ipv4", setValue("::1"), false},
		{"StringRules", "ipv6", setValue("10.0.0.1"), false},
		{"StringRules", "fixed", setValue("other"), false},
		{"StringRules", "small", setValue("123456789"), false},
		{"StringRules", "tuuid", setValue("123e4567-e89b-12d3-a456-426614174000"), false},
		{"StringRules", "nick", setValue("ab"), false},
		{"StringRules", "opt_nick", setValue("ab"), false},
		{"StringRules", "min_max", clearField, false},
		{"NumberRules", "percent", setValue(int32(101)), false},
		{"NumberRules", "percent", setValue(int32(-1)), false},
		{"NumberRules", "big", setValue(int64(5000000000)), true},
		{"NumberRules", "big", setValue(int64(-5)), true},
		{"NumberRules", "odd", setValue(uint32(2)), false},
		{"NumberRules", "answer", setValue(uint64(41)), false},
		{"NumberRules", "answer", setValue(uint64(41)), true},
		{"NumberRules", "ratio", setValue(1.0), false},
		{"NumberRules", "ratio", nan, false},
		{"NumberRules", "temp", setValue(float32(-41)), false},
		{"NumberRules", "not_zero", setValue(int32(13)), false},
		{"NumberRules", "outside", setValue(int32(7)), false},
		{"NumberRules", "finite", nan, false},
		{"NumberRules", "ids", setValue(uint64(8)), true},
		{"NumberRules", "neg", setValue(int32(1)), false},
		{"NumberRules", "w_small", func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
			w := m.NewField(fd).Message()
			w.Set(w.Descriptor().Fields().ByName("value"), protoreflect.ValueOfInt32(11))
			m.Set(fd, protoreflect.ValueOfMessage(w))
		}, false},
		{"CollectionRules", "tags", setList("a", "b", "c", "d"), false},
		{"CollectionRules", "tags", setList("a", "a"), false},
		{"CollectionRules", "tags", setList("toolong"), false},
		{"CollectionRules", "tags", clearField, false},
		{"CollectionRules", "scores", setMap(map[string]int32{"aa": 1, "bb": 2, "cc": 3}), false},
		{"CollectionRules", "scores", setMap(map[string]int32{"a": 1}), false},
		{"CollectionRules", "scores", setMap(map[string]int32{"aa": -1}), false},
		{"CollectionRules", "blob", setValue([]byte("1234567")), false},
		{"CollectionRules", "key", setValue([]byte("123")), false},
		{"CollectionRules", "color", setValue(protoreflect.EnumNumber(0)), false},
		{"CollectionRules", "primary", setValue(protoreflect.EnumNumber(2)), false},
		{"CollectionRules", "item", clearField, false},
		{"CollectionRules", "name", clearField, false},
		{"CollectionRules", "numbers", setList(int64(1), int64(2), int64(3)), false},
		{"CollectionRules", "numbers", setList(int64(0)), true},
		{"CollectionRules", "user", func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
			m.Clear(fd)
			m.Clear(fd.ContainingMessage().Fields().ByName("group"))
		}, false},
		{"DescribedRules", "email", func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
			m.Set(fd, protoreflect.ValueOfString("a@example.com"))
			m.Set(fd.ContainingMessage().Fields().ByName("phone"), protoreflect.ValueOfString("+1"))
		}, false},
		{"DescribedRules", "email", func(m *dynamicpb.Message, fd protoreflect.FieldDescriptor) {
			m.Clear(fd)
			m.Clear(fd.ContainingMessage().Fields().ByName("phone"))
		}, false},
	}
	schemas := map[string]*jsonschema.Schema{}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%s.%s#%d", tt.message, tt.field, i), func(t *testing.T) {
			md := message(t, f.reg, tt.message)
			s := schemas[tt.message]
			if s == nil {
				data, err := Input(md)
				if err != nil {
					t.Fatal(err)
				}
				s = compileSchema(t, data)
				schemas[tt.message] = s
			}
			fd := md.Fields().ByName(protoreflect.Name(tt.field))
			g := newGen(uint64(i)+1, input, item)
			tries := 20
			if raceEnabled || testing.Short() {
				tries = 4
			}
			for range tries {
				msg := f.valid(g, md)
				if msg == nil {
					t.Fatal("no valid message to break")
				}
				tt.set(msg, fd)
				if f.validator.Validate(msg) == nil {
					t.Fatalf("protovalidate accepts the broken message %v: the test case breaks no rule", msg)
				}
				js := f.marshal(t, msg, protojson.MarshalOptions{})
				if tt.number {
					js = asNumber(t, js, fd.JSONName())
				}
				if validates(s, js) == nil {
					t.Fatalf("the schema accepts what protovalidate rejects:\n%s", js)
				}
			}
		})
	}
}

// asNumber rewrites the string (or list of strings) under name as
// numbers.
func asNumber(t *testing.T, js []byte, name string) []byte {
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	switch v := doc[name].(type) {
	case string:
		doc[name] = json.Number(v)
	case []any:
		for i, e := range v {
			if s, ok := e.(string); ok {
				v[i] = json.Number(s)
			}
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExamplesFit checks that every examples and default value in the
// test messages' schemas fits the subschema it stands in.
func TestExamplesFit(t *testing.T) {
	reg := compileFiles(t)
	checked := 0
	reg.RangeFilesByPackage("test.v1", func(fd protoreflect.FileDescriptor) bool {
		msgs := fd.Messages()
		for i := range msgs.Len() {
			for _, build := range []func(protoreflect.MessageDescriptor) (json.RawMessage, error){Input, Output} {
				data, err := build(msgs.Get(i))
				if err != nil {
					t.Fatal(err)
				}
				var doc any
				if err := json.Unmarshal(data, &doc); err != nil {
					t.Fatal(err)
				}
				walkSchemas(doc, func(sub map[string]any) {
					values := asList(sub["examples"])
					if d, ok := sub["default"]; ok {
						values = append(values, d)
					}
					if len(values) == 0 {
						return
					}
					raw, err := json.Marshal(sub)
					if err != nil {
						t.Fatal(err)
					}
					s := compileSchema(t, raw)
					for _, v := range values {
						js, _ := json.Marshal(v)
						if err := validates(s, js); err != nil {
							t.Errorf("%s: %s does not fit %s: %v", msgs.Get(i).FullName(), js, raw, err)
						}
						checked++
					}
				})
			}
		}
		return true
	})
	if checked < 10 {
		t.Errorf("only %d examples checked", checked)
	}
}

// walkSchemas calls f on every object schema under v.
func walkSchemas(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for k, sub := range v {
			switch k {
			case "examples", "default", "enum", "const":
			case "properties": // names to schemas, not a schema
				for _, p := range sub.(map[string]any) {
					walkSchemas(p, f)
				}
			default:
				walkSchemas(sub, f)
			}
		}
	case []any:
		for _, sub := range v {
			walkSchemas(sub, f)
		}
	}
}
