package fields

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func isString(t reflect.Type) bool { return t.Kind() == reflect.String }

func TestVarsReadsValuesAndOnly(t *testing.T) {
	type in struct {
		Units string `json:"units" enum:"metric, imperial" default:"metric"`
		City  string `json:"city,omitempty" suggest:"Oslo,Rome" doc:"A city."`
		Plain string
		Skip  string `json:"-"`
	}
	vars, errs := Vars(reflect.TypeFor[in](), "argument", isString, "a string")
	if errs != nil {
		t.Fatal(errs)
	}
	type row struct {
		Name, Doc, Default string
		Values             []string
		Only, Omit         bool
	}
	var got []row
	for _, v := range vars {
		got = append(got, row{v.Name, v.Tags.Doc, v.Tags.Default, v.Values, v.Only, v.Omit()})
	}
	want := []row{
		{Name: "units", Default: "metric", Values: []string{"metric", "imperial"}, Only: true},
		{Name: "city", Doc: "A city.", Values: []string{"Oslo", "Rome"}, Omit: true},
		{Name: "Plain"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Vars (-want +got):\n%s", diff)
	}
}

type hidden struct{ H string }

func TestVarsReportsEveryProblem(t *testing.T) {
	type in struct {
		*hidden
		N     int    `json:"n"`
		Units string `json:"units" enum:"a,b" default:"c" required:"maybe"`
		Both  string `json:"both" enum:"a" suggest:"b"`
	}
	_, errs := Vars(reflect.TypeFor[in](), "variable", isString, "a string")
	var got []string
	for _, e := range errs {
		msg := e.Error()
		_, after, _ := strings.Cut(msg, ")") // drop the struct's long name
		got = append(got, strings.Fields(msg)[1]+after)
	}
	want := []string{
		"H is promoted through an embedded pointer to an unexported struct, which cannot be set",
		"n must be a string",
		`units: tag required "maybe" is not true or false`,
		`units: tag default "c" is not one of the enum's values (a, b)`,
		`both: tag suggest "b" cannot be used with enum, which already lists the values`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Vars errors (-want +got):\n%s", diff)
	}
}
