package fields

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type inner struct {
	A string
	B string `json:"b"`
}

type Exported struct {
	C string
	D string `json:"d,omitempty"`
}

type tagged struct {
	A string `json:"a"`
}

type untagged struct {
	A string
}

type deep struct {
	untagged
}

type conflict1 struct{ X string }
type conflict2 struct{ X string }

type named struct{ Y string }

// The shapes encoding/json's naming rules have to get right.
var namingCases = []any{
	struct{ A, B string }{},
	struct {
		A string `json:"-"`
		B string `json:"-,"`
		c string
	}{},
	struct {
		A string `json:"renamed,omitempty"`
		B string `json:",omitzero"`
		C string `json:"bad name!\"x"`
		D int8
		E uint16
		F int `json:"f,string"`
	}{},
	struct {
		inner
		Exported
	}{},
	struct {
		*Exported
		E string
	}{},
	struct {
		tagged
		untagged // A: tagged wins at equal depth
	}{},
	struct {
		deep
		tagged // A: shallower wins
	}{},
	struct {
		conflict1
		conflict2 // X: a tie at equal depth leaves it out
		Z         string
	}{},
	struct {
		named `json:"named"` // an embedded struct with a name is a member
		Exported
	}{},
	struct {
		A string
		B string `json:"A"` // a tagged field beats an untagged one of the same depth
	}{},
}

// fill sets every field reachable from v (a pointer) to a non-zero value,
// so that encoding/json writes every member, omitempty or not.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() && v.CanSet() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if !v.IsNil() {
			fill(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() && v.Type().Field(i).Anonymous && f.Kind() == reflect.Pointer {
				// An unexported embedded pointer cannot be set; leave it nil.
				continue
			}
			if f.CanSet() || f.Kind() == reflect.Struct {
				fill(f)
			}
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString("x")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.CanSet() {
			v.SetInt(1)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.CanSet() {
			v.SetUint(1)
		}
	}
}

// memberNames returns the member names of a JSON object, in order.
func memberNames(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

func TestOfNamesFieldsAsEncodingJSONDoes(t *testing.T) {
	for _, c := range namingCases {
		typ := reflect.TypeOf(c)
		t.Run(typ.String(), func(t *testing.T) {
			v := reflect.New(typ)
			fill(v)
			data, err := json.Marshal(v.Interface())
			if err != nil {
				t.Fatal(err)
			}
			want := memberNames(t, data)
			var got []string
			for _, f := range Of(typ) {
				got = append(got, f.Name)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("names differ from encoding/json's %s (-json +Of):\n%s", data, diff)
			}
			// Each field's index reaches a field of that JSON name.
			for _, f := range Of(typ) {
				if sf := typ.FieldByIndex(f.Index); sf.Name != f.StructField.Name {
					t.Errorf("%s: index %v reaches %s", f.Name, f.Index, sf.Name)
				}
			}
		})
	}
}

func TestOfParsesOptionsExactly(t *testing.T) {
	type T struct {
		A string `json:"a,omitempty"`
		B string `json:"b,omitemptyish"`
		C int    `json:"c,omitzero,string"`
		D []int  `json:"d,string"` // string does not apply to a slice
	}
	got := map[string][3]bool{}
	for _, f := range Of(reflect.TypeFor[T]()) {
		got[f.Name] = [3]bool{f.OmitEmpty, f.OmitZero, f.Quoted}
	}
	want := map[string][3]bool{"a": {true, false, false}, "b": {}, "c": {false, true, true}, "d": {}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestOfMarksFieldsPromotedThroughAPointer(t *testing.T) {
	type T struct {
		*Exported
		E string
	}
	for _, f := range Of(reflect.TypeFor[T]()) {
		if want := f.Name != "E"; f.ViaPointer != want {
			t.Errorf("%s: ViaPointer = %v, want %v", f.Name, f.ViaPointer, want)
		}
	}
}

func TestParseReportsEveryBadTag(t *testing.T) {
	type T struct {
		F string `required:"yes" enum:"a,,b" suggest:"c"`
	}
	_, errs := Parse(reflect.TypeFor[T]().Field(0).Tag)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		`tag enum "a,,b" has an empty value: list the values, separated by commas`,
		`tag required "yes" is not true or false`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestParseReadsTheVocabulary(t *testing.T) {
	type T struct {
		F string `doc:"The unit." title:"Unit" enum:"metric, imperial" required:"false" default:"metric"`
	}
	got, errs := Parse(reflect.TypeFor[T]().Field(0).Tag)
	if errs != nil {
		t.Fatal(errs)
	}
	want := Tags{Doc: "The unit.", Title: "Unit", Enum: []string{"metric", "imperial"}, Required: RequiredNo, Default: "metric", HasDefault: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestValueAllocatesEmbeddedPointers(t *testing.T) {
	type T struct {
		*Exported
		E string
	}
	var v T
	rv := reflect.ValueOf(&v).Elem()
	for _, f := range Of(rv.Type()) {
		Value(rv, f.Index).SetString(f.Name)
	}
	if v.Exported == nil || v.C != "C" || v.D != "d" || v.E != "E" {
		t.Errorf("got %+v", v)
	}
}

func TestSettable(t *testing.T) {
	type T struct {
		*Exported
		*inner
	}
	for _, f := range Of(reflect.TypeFor[T]()) {
		want := f.Name == "C" || f.Name == "d"
		if got := Settable(reflect.TypeFor[T](), f.Index); got != want {
			t.Errorf("%s: Settable = %v, want %v", f.Name, got, want)
		}
	}
}
