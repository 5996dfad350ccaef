package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/infer/*.json from the inferred schemas")

type scalars struct {
	S   string  `json:"s"`
	I   int     `json:"i"`
	I8  int8    `json:"i8"`
	I64 int64   `json:"i64"`
	U   uint    `json:"u"`
	U16 uint16  `json:"u16"`
	F32 float32 `json:"f32"`
	F64 float64 `json:"f64"`
	B   bool    `json:"b"`
	N   json.Number
}

type names struct {
	Plain       string
	Renamed     string `json:"renamed"`
	OmitEmpty   string `json:"omit_empty,omitempty"`
	OmitZero    int    `json:"omit_zero,omitzero"`
	Skipped     string `json:"-"`
	OptionsOnly string `json:",omitempty"`
	//lint:ignore U1000 unexported fields are left out; this one shows it
	unexported string
	Pointer    *string `json:"pointer"`
	Forced     *int    `json:"forced" required:"true"`
	Unforced   string  `json:"unforced" required:"false"`
}

type inner struct {
	X int `json:"x" doc:"An inner number."`
}

type containers struct {
	Strings  []string          `json:"strings"`
	Fixed    [3]int            `json:"fixed"`
	Bytes    []byte            `json:"bytes"`
	DocBytes []byte            `json:"doc_bytes" doc:"A file."`
	Map      map[string]int    `json:"map"`
	IntKeys  map[int]string    `json:"int_keys"`
	Nested   inner             `json:"nested"`
	Structs  []inner           `json:"structs"`
	Ptrs     []*inner          `json:"ptrs"`
	MapPtrs  map[string]*inner `json:"map_ptrs"`
	Anon     struct {
		Y string `json:"y"`
	} `json:"anon"`
}

type Base struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type Audit struct {
	Created string `json:"created"`
	Name    string // "Name", not "name": both stay
}

type conflictA struct{ Dup string }
type conflictB struct{ Dup string }

type taggedA struct {
	Tagged string `json:"Win" doc:"Tagged wins."`
}
type taggedB struct{ Win string }

type embedded struct {
	Base
	*Audit
	Meta inner `json:"meta"`
	conflictA
	conflictB
	taggedA
	taggedB
	Own  string `json:"own"`
	Name string `json:"name" doc:"Shallower wins."`
}

type Tagged struct {
	inner `json:"inner"`
}

type textish struct{ v string }

func (t *textish) UnmarshalText(b []byte) error { t.v = string(b); return nil }

type jsonish struct{ V string }

func (jsonish) MarshalJSON() ([]byte, error) { return []byte(`"x"`), nil }

type plainText int

func (plainText) MarshalText() ([]byte, error) { return nil, nil }

type money int64

func (money) JSONSchema() *Schema {
	return &Schema{Type: "string", Pattern: `^\d+\.\d\d$`, Description: "An amount such as 12.50."}
}

type color int

func (*color) JSONSchema() *Schema { return Choice("A color.", "red", "green") }

type special struct {
	When     time.Time         `json:"when"`
	WhenPtr  *time.Time        `json:"when_ptr"`
	Raw      json.RawMessage   `json:"raw"`
	Any      any               `json:"any"`
	Err      error             `json:"err,omitempty"`
	Text     plainText         `json:"text"`
	Custom   textish           `json:"custom"`
	JSON     jsonish           `json:"json" doc:"Its own JSON."`
	Money    money             `json:"money"`
	MoneyDoc money             `json:"money_doc" doc:"The price." maxLength:"12"`
	Color    color             `json:"color"`
	ColorPtr *color            `json:"color_ptr"`
	TextKeys map[plainText]int `json:"text_keys"`
}

type numberTags struct {
	Min       int     `json:"min" minimum:"1"`
	Max       int     `json:"max" maximum:"50"`
	ExMin     float64 `json:"ex_min" exclusiveMinimum:"0"`
	ExMax     float64 `json:"ex_max" exclusiveMaximum:"1.5"`
	Multiple  float64 `json:"multiple" multipleOf:"0.25"`
	Unsigned  uint    `json:"unsigned" maximum:"9"`
	Range     *int    `json:"range" minimum:"-3" maximum:"3" default:"0" example:"2"`
	Enum      int     `json:"enum" enum:"1, 2,3"`
	EnumFloat float64 `json:"enum_float" enum:"0.5,1e3"`
	Default   float64 `json:"default" default:"2.5"`
}

type stringTags struct {
	Doc      string `json:"doc" doc:"Described \"quoted\"."`
	Min      string `json:"min" minLength:"1"`
	Max      string `json:"max" maxLength:"20"`
	Pattern  string `json:"pattern" pattern:"^[a-z]+$"`
	Email    string `json:"email" format:"email"`
	URI      string `json:"uri" format:"uri"`
	UUID     string `json:"uuid" format:"uuid"`
	Date     string `json:"date" format:"date"`
	DateTime string `json:"date_time" format:"date-time"`
	Time     string `json:"time" format:"time"`
	Host     string `json:"host" format:"hostname"`
	IPv4     string `json:"ipv4" format:"ipv4"`
	IPv6     string `json:"ipv6" format:"ipv6"`
	Enum     string `json:"enum" enum:"low, medium ,high"`
	Default  string `json:"default,omitempty" default:"a, \"b\""`
	Example  string `json:"example" example:"hello"`
	Old      string `json:"old,omitempty" deprecated:"true"`
	Current  string `json:"current" deprecated:"false"`
}

type otherTags struct {
	Items    []string       `json:"items" minItems:"1" maxItems:"5" uniqueItems:"true"`
	Enum     []string       `json:"enum" enum:"a,b"`
	IntEnum  []int          `json:"int_enum,omitempty" enum:"1,2"`
	Default  []int          `json:"default" default:"[1, 2]"`
	Example  map[string]int `json:"example" example:"{\"a\": 1}"`
	Flag     bool           `json:"flag" default:"true" enum:"true"`
	AnyValue any            `json:"any_value" default:"null" example:"[\"x\"]"`
	Struct   inner          `json:"struct" default:"{\"x\":1}" doc:"Overrides the type's doc."`
}

type Node struct {
	Name     string          `json:"name"`
	Children []Node          `json:"children" doc:"The node's children."`
	Parent   *Node           `json:"parent,omitempty"`
	ByName   map[string]Node `json:"by_name,omitempty"`
}

type Tree []Tree

type Page[T any] struct {
	Items []T  `json:"items"`
	More  bool `json:"more"`
}

type repeated struct {
	A inner `json:"a"`
	B inner `json:"b" doc:"Its own doc."`
	C inner `json:"c"`
}

func TestForGolden(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		opts *Options
	}{
		{"scalars", reflect.TypeFor[scalars](), nil},
		{"names", reflect.TypeFor[names](), nil},
		{"containers", reflect.TypeFor[containers](), nil},
		{"embedded", reflect.TypeFor[embedded](), nil},
		{"embedded_tagged", reflect.TypeFor[Tagged](), nil},
		{"special", reflect.TypeFor[special](), nil},
		{"number_tags", reflect.TypeFor[numberTags](), nil},
		{"string_tags", reflect.TypeFor[stringTags](), nil},
		{"other_tags", reflect.TypeFor[otherTags](), nil},
		{"recursive_allowed", reflect.TypeFor[Node](), &Options{AllowRecursion: true}},
		{"recursive_slice_allowed", reflect.TypeFor[Tree](), &Options{AllowRecursion: true}},
		{"generic", reflect.TypeFor[Page[inner]](), nil},
		{"repeated", reflect.TypeFor[repeated](), nil},
		{"pointer_root", reflect.TypeFor[*inner](), nil},
		{"empty_struct", reflect.TypeFor[struct{}](), nil},
		{"any", reflect.TypeFor[any](), nil},
		{"string", reflect.TypeFor[string](), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ForType(tt.typ, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Indent(&got, data, "", "  "); err != nil {
				t.Fatal(err)
			}
			got.WriteByte('\n')
			file := filepath.Join("testdata", "infer", tt.name+".json")
			if *update {
				if err := os.WriteFile(file, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test -run ForGolden -update writes it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s differs (go test -run ForGolden -update rewrites it); got:\n%s", file, got.Bytes())
			}
			if err := s.Portable(); err != nil {
				t.Errorf("Portable: %v", err)
			}
		})
	}
}

type badProvider struct{}

func (badProvider) JSONSchema() *Schema { return nil }

func TestForErrors(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"minimum not a number", reflect.TypeFor[struct {
			Limit int `json:"limit" minimum:"x"`
		}](), `schema: struct.Limit: tag minimum "x" is not a number`},
		{"named type", reflect.TypeFor[struct {
			In struct {
				Limit int `minimum:"NaN"`
			}
		}](), `schema: struct.In.Limit: tag minimum "NaN" is not a number`},
		{"does not apply", reflect.TypeFor[struct {
			N int `minLength:"3"`
		}](), `schema: struct.N: tag minLength "3" does not apply to type int`},
		{"minItems on string", reflect.TypeFor[struct {
			S *string `minItems:"3"`
		}](), `schema: struct.S: tag minItems "3" does not apply to type *string`},
		{"enum on any", reflect.TypeFor[struct {
			A any `enum:"1"`
		}](), `schema: struct.A: tag enum "1" does not apply to type interface {}`},
		{"enum on struct items", reflect.TypeFor[struct {
			A []inner `enum:"1"`
		}](), `schema: struct.A: tag enum "1" does not apply to arrays of this item type`},
		{"unknown format", reflect.TypeFor[struct {
			E string `format:"mail"`
		}](), `schema: struct.E: tag format "mail" is not one of email, uri, uuid, date, date-time, time, hostname, ipv4, ipv6`},
		{"bad pattern", reflect.TypeFor[struct {
			P string `pattern:"("`
		}](), "schema: struct.P: tag pattern \"(\" does not compile: error parsing regexp: missing closing ): `(`"},
		{"negative length", reflect.TypeFor[struct {
			P string `maxLength:"-1"`
		}](), `schema: struct.P: tag maxLength "-1" is not a whole number of at least 0`},
		{"multipleOf zero", reflect.TypeFor[struct {
			F float64 `multipleOf:"0"`
		}](), `schema: struct.F: tag multipleOf "0" is not greater than 0`},
		{"bad bool", reflect.TypeFor[struct {
			F []int `uniqueItems:"yes"`
		}](), `schema: struct.F: tag uniqueItems "yes" is not true or false`},
		{"bad required", reflect.TypeFor[struct {
			F int `required:"1"`
		}](), `schema: struct.F: tag required "1" is not true or false`},
		{"integer enum", reflect.TypeFor[struct {
			F int `enum:"1,2.5"`
		}](), `schema: struct.F: tag enum "1,2.5" is not an integer`},
		{"integer default", reflect.TypeFor[struct {
			F uint8 `default:"x"`
		}](), `schema: struct.F: tag default "x" is not an integer`},
		{"json default", reflect.TypeFor[struct {
			F []int `default:"1,2"`
		}](), `schema: struct.F: tag default "1,2" is not JSON`},
		{"bool example", reflect.TypeFor[struct {
			F bool `example:"on"`
		}](), `schema: struct.F: tag example "on" is not true or false`},
		{"min above max", reflect.TypeFor[struct {
			F int `minimum:"5" maximum:"1"`
		}](), `schema: struct.F: tag maximum "1" is less than minimum 5`},
		{"unsigned below zero", reflect.TypeFor[struct {
			F uint `maximum:"-1"`
		}](), `schema: struct.F: tag maximum "-1" is less than minimum 0`},
		{"lengths crossed", reflect.TypeFor[struct {
			F string `minLength:"5" maxLength:"1"`
		}](), `schema: struct.F: tag maxLength "1" is less than minLength 5`},
		{"items crossed", reflect.TypeFor[struct {
			F []int `minItems:"5" maxItems:"1"`
		}](), `schema: struct.F: tag maxItems "1" is less than minItems 5`},
		{"misspelled", reflect.TypeFor[struct {
			F string `json:"f" minlength:"1"`
		}](), `schema: struct.F: tag minlength "1" is not a tag this package reads; did you mean minLength?`},
		{"transposed", reflect.TypeFor[struct {
			F string `json:"f" minLenght:"3"`
		}](), `schema: struct.F: tag minLenght "3" is not a tag this package reads; did you mean minLength?`},
		{"a letter short", reflect.TypeFor[struct {
			F int `json:"f" mininum:"3"`
		}](), `schema: struct.F: tag mininum "3" is not a tag this package reads; did you mean minimum?`},
		{"two letters off a long key", reflect.TypeFor[struct {
			F int `json:"f" exclusiveMinimun:"3" multipleof:"2"`
		}](), "schema: struct.F: tag exclusiveMinimun \"3\" is not a tag this package reads; did you mean exclusiveMinimum?\n" +
			"schema: struct.F: tag multipleof \"2\" is not a tag this package reads; did you mean multipleOf?"},
		{"a shared key misspelled", reflect.TypeFor[struct {
			F string `json:"f" defualt:"x" descrption:"y" titel:"z"`
		}](), "schema: struct.F: tag defualt \"x\" is not a tag this package reads; did you mean default?\n" +
			"schema: struct.F: tag titel \"z\" is not a tag this package reads; did you mean title?"},
		{"named owner", reflect.TypeFor[struct {
			A Page[struct {
				V int `format:"email"`
			}]
		}](), `schema: schema.Page[struct { V int "format:\"email\"" }].Items.V: tag format "email" does not apply to type int`},
		{"recursive", reflect.TypeFor[Node](), `schema: recursive type schema.Node at children[]`},
		{"recursive pointer", reflect.TypeFor[struct{ Root *Node }](), `schema: recursive type schema.Node at Root.children[]`},
		{"recursive slice", reflect.TypeFor[Tree](), `schema: recursive type schema.Tree at []`},
		{"channel", reflect.TypeFor[struct {
			C chan int `json:"c"`
		}](), `schema: unsupported type chan int at c`},
		{"func root", reflect.TypeFor[func()](), `schema: unsupported type func()`},
		{"complex", reflect.TypeFor[[]complex128](), `schema: unsupported type complex128 at []`},
		{"map key", reflect.TypeFor[map[float64]int](), `schema: unsupported map key type float64`},
		{"nil provider", reflect.TypeFor[struct{ P badProvider }](), `schema: schema.badProvider.JSONSchema returned nil`},
		{"every bad tag", reflect.TypeFor[struct {
			A int    `minLength:"1" required:"yes"`
			B string `maxlength:"2" pattern:"("`
			C []int  `json:"c" enum:"1,x"`
		}](), "schema: struct.A: tag required \"yes\" is not true or false\n" +
			"schema: struct.A: tag minLength \"1\" does not apply to type int\n" +
			"schema: struct.B: tag maxlength \"2\" is not a tag this package reads; did you mean maxLength?\n" +
			"schema: struct.B: tag pattern \"(\" does not compile: error parsing regexp: missing closing ): `(`\n" +
			"schema: struct.C: tag enum \"1,x\" is not an integer"},
		{"tag problems and a type problem", reflect.TypeFor[struct {
			A int      `format:"email"`
			C chan int `json:"c"`
		}](), "schema: struct.A: tag format \"email\" does not apply to type int\nschema: unsupported type chan int at c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := ForType(tt.typ, nil)
			if err == nil {
				data, _ := json.Marshal(s)
				t.Fatalf("got schema %s, want error %s", data, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got error\n%s\nwant\n%s", err, tt.want)
			}
		})
	}
}

func TestTagErrorFields(t *testing.T) {
	type SearchIn struct {
		Limit int `json:"limit,omitzero" minimum:"x"`
	}
	_, err := For[SearchIn](nil)
	var te *TagError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a *TagError", err)
	}
	want := TagError{Type: "schema.SearchIn", Field: "Limit", Tag: "minimum", Value: "x"}
	got := *te
	got.Err = nil
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if !strings.HasPrefix(err.Error(), "schema: schema.SearchIn.Limit: tag minimum") {
		t.Errorf("message %q", err)
	}
}

func TestForJSONTagEdgeCases(t *testing.T) {
	// Built at run time: these tags are what vet and staticcheck warn of.
	st := reflect.StructOf([]reflect.StructField{
		{Name: "Dash", Type: reflect.TypeFor[string](), Tag: `json:"-,"`},
		{Name: "Invalid", Type: reflect.TypeFor[string](), Tag: `json:"a\"b,omitempty"`},
	})
	s, err := ForType(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(s)
	want := `{"type":"object","properties":{"-":{"type":"string"},"Invalid":{"type":"string"}},"required":["-"],"additionalProperties":false}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
}

func TestForNilType(t *testing.T) {
	if _, err := ForType(nil, nil); err == nil {
		t.Error("ForType(nil) succeeded")
	}
}

func TestForSharesWithinCallOnly(t *testing.T) {
	a, err := For[repeated](nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Properties["a"] != a.Properties["c"] {
		t.Error("the same type inferred twice within one call")
	}
	if a.Properties["a"] == a.Properties["b"] {
		t.Error("a tagged field shares its schema with an untagged one")
	}
	b, _ := For[repeated](nil)
	if a.Properties["a"] == b.Properties["a"] {
		t.Error("two calls share a subschema")
	}
}

// FuzzForTags infers the schema of a struct whose field carries two
// fuzzed tags: inference must not panic, must fail only with a
// [*TagError], and must otherwise give a schema that marshals to JSON.
func FuzzForTags(f *testing.F) {
	f.Add(uint8(1), "1", uint8(2), "50", uint8(1))
	f.Add(uint8(13), "a, b", uint8(14), "a", uint8(0))
	f.Add(uint8(8), "^x(", uint8(9), "email", uint8(0))
	f.Add(uint8(14), "[1,2]", uint8(12), "true", uint8(6))
	f.Add(uint8(15), "{\"x\":1}", uint8(0), "doc", uint8(11))
	f.Add(uint8(5), "0", uint8(6), "-1", uint8(2))
	f.Add(uint8(3), "1e400", uint8(17), "false", uint8(3))
	types := []reflect.Type{
		reflect.TypeFor[string](), reflect.TypeFor[int](), reflect.TypeFor[uint8](),
		reflect.TypeFor[float64](), reflect.TypeFor[bool](), reflect.TypeFor[[]string](),
		reflect.TypeFor[[]int](), reflect.TypeFor[map[string]int](), reflect.TypeFor[*string](),
		reflect.TypeFor[time.Time](), reflect.TypeFor[any](), reflect.TypeFor[inner](),
		reflect.TypeFor[[]byte](), reflect.TypeFor[money](),
	}
	f.Fuzz(func(t *testing.T, k1 uint8, v1 string, k2 uint8, v2 string, typ uint8) {
		key1 := tagRules[int(k1)%len(tagRules)].key
		key2 := tagRules[int(k2)%len(tagRules)].key
		if key1 == key2 {
			return
		}
		tag := `json:"f" ` + key1 + `:` + strconv.Quote(v1) + ` ` + key2 + `:` + strconv.Quote(v2)
		st := reflect.StructOf([]reflect.StructField{{
			Name: "F", Type: types[int(typ)%len(types)], Tag: reflect.StructTag(tag),
		}})
		s, err := ForType(st, nil)
		if err != nil {
			var te *TagError
			if !errors.As(err, &te) || te.Field != "F" {
				t.Fatalf("%s: got %v, want a *TagError for F", tag, err)
			}
			return
		}
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("%s: marshal: %v", tag, err)
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %s is not JSON: %v", tag, data, err)
		}
		if s.Properties["f"] == nil {
			t.Fatalf("%s: no property f in %s", tag, data)
		}
	})
}

func TestForReadsTheSharedVocabulary(t *testing.T) {
	type In struct {
		Units string `json:"units" title:"Units" doc:"How to measure." enum:"metric, imperial" default:"metric"`
		Count int    `json:"count,string"`
		Force string `json:"force" default:"x" required:"true"`
	}
	s, err := For[In](nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(s)
	want := `{"type":"object","properties":{"units":{"type":"string","title":"Units","description":"How to measure.","enum":["metric","imperial"],"default":"metric"},` +
		`"count":{"type":"string"},"force":{"type":"string","default":"x"}},"required":["count","force"],"additionalProperties":false}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
}

// Tags other packages read, and keys far from any this package reads,
// are not taken for misspellings.
func TestForeignTagsAreNotMisspellings(t *testing.T) {
	type in struct {
		A string `json:"a" yaml:"a" xml:"a" toml:"a" bson:"a" db:"a" form:"a" env:"A" url:"a" query:"a" path:"a" header:"A"`
		B string `json:"b" validate:"required" binding:"required" mapstructure:"b" gorm:"column:b" msgpack:"b" cbor:"1" example:"x"`
		C string `json:"c" description:"C." readOnly:"true" default:"x" enum:"x" doc:"C."`
	}
	if _, err := For[in](nil); err != nil {
		t.Errorf("For: %v", err)
	}
}

// A slice or map field tagged omitempty or omitzero is left out when nil,
// never written as null: its output schema is an array or an object
// alone, as portable clients expect, and the property is optional. A
// pointer to a slice still may be null.
func TestOutputOmittedSlicesAreNeverNull(t *testing.T) {
	type result struct {
		Low     []string          `json:"low,omitzero"`
		OK      []string          `json:"ok,omitempty"`
		Labels  map[string]string `json:"labels,omitzero"`
		Pointer *[]string         `json:"pointer,omitempty"`
		Bare    []string          `json:"bare"`
	}
	s, err := For[result](&Options{Output: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"low":{"type":"array","items":{"type":"string"}},"ok":{"type":"array","items":{"type":"string"}},` +
		`"labels":{"type":"object","additionalProperties":{"type":"string"}},"pointer":{"type":["array","null"],"items":{"type":"string"}},` +
		`"bare":{"type":["array","null"],"items":{"type":"string"}}},"required":["bare"],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// What encoding/json writes of nil and empty ones fits the schema.
	v, err := Compile(s, Strict)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []result{{}, {Low: []string{}, OK: []string{}, Labels: map[string]string{}}, {Low: []string{"a"}}} {
		data, _ := json.Marshal(r)
		if _, errs := v.Validate(data); len(errs) > 0 {
			t.Errorf("%s: %v", data, errs)
		}
	}
}

// A result's nil slice or map is encoded as null, so an output schema
// admits null for them; an input schema does not.
func TestOutputAdmitsNilSlicesAndMaps(t *testing.T) {
	type result struct {
		Roles  []string          `json:"roles"`
		Labels map[string]string `json:"labels"`
		Count  int               `json:"count"`
	}
	for _, tt := range []struct {
		opts *Options
		want string
	}{
		{nil, `{"type":"object","properties":{"roles":{"type":"array","items":{"type":"string"}},"labels":{"type":"object","additionalProperties":{"type":"string"}},"count":{"type":"integer"}},"required":["roles","labels","count"],"additionalProperties":false}`},
		{&Options{Output: true}, `{"type":"object","properties":{"roles":{"type":["array","null"],"items":{"type":"string"}},"labels":{"type":["object","null"],"additionalProperties":{"type":"string"}},"count":{"type":"integer"}},"required":["roles","labels","count"],"additionalProperties":false}`},
	} {
		s, err := For[result](tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("Output=%v:\n got %s\nwant %s", tt.opts != nil, got, tt.want)
		}
		v, err := Compile(s, Strict)
		if err != nil {
			t.Fatal(err)
		}
		_, errs := v.Validate([]byte(`{"roles":null,"labels":null,"count":1}`))
		if (len(errs) == 0) != (tt.opts != nil) {
			t.Errorf("Output=%v: validating nulls gave %v", tt.opts != nil, errs)
		}
	}
}
