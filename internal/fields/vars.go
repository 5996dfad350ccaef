package fields

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Var is a struct field that holds one named text value: a prompt
// argument or a resource-template variable.
type Var struct {
	Field
	// Tags are the field's tags of the shared vocabulary.
	Tags Tags
	// Values are the values to complete: the enum tag's, else the suggest
	// tag's. Nil when there is neither.
	Values []string
	// Only says Values are the only values allowed (an enum tag).
	Only bool
}

// Vars reads the fields of struct type t as named text values, as prompt
// arguments and resource-template variables are read: every field that
// encoding/json decodes (see [Of]), its tags parsed by [Parse]. kind names
// a value in errors ("argument", "variable"); accept reports whether a
// field's type can hold one, and want completes the sentence for one that
// cannot ("a string: prompt arguments are strings"). It returns every
// problem, not only the first: a field accept refuses, a field that
// [Settable] says cannot be set, each tag that does not parse, and a
// default that is not one of the enum's values. Callers refuse the whole
// struct when there is any.
func Vars(t reflect.Type, kind string, accept func(reflect.Type) bool, want string) ([]Var, []error) {
	var vars []Var
	var errs []error
	for _, f := range Of(t) {
		where := fmt.Sprintf("%s %s (%v.%s)", kind, f.Name, f.Owner, f.StructField.Name)
		if !accept(f.StructField.Type) {
			errs = append(errs, fmt.Errorf("%s must be %s", where, want))
			continue
		}
		if !Settable(t, f.Index) {
			errs = append(errs, fmt.Errorf("%s is promoted through an embedded pointer to an unexported struct, which cannot be set", where))
			continue
		}
		tags, tagErrs := Parse(f.StructField.Tag)
		for _, e := range tagErrs {
			errs = append(errs, fmt.Errorf("%s: %w", where, e))
		}
		if tags.HasDefault && tags.Enum != nil && !slices.Contains(tags.Enum, tags.Default) {
			errs = append(errs, fmt.Errorf("%s: tag default %s is not one of the enum's values (%s)", where, quote(tags.Default), strings.Join(tags.Enum, ", ")))
		}
		v := Var{Field: f, Tags: tags}
		if tags.Enum != nil {
			v.Values, v.Only = tags.Enum, true
		} else if tags.Suggest != nil {
			v.Values = tags.Suggest
		}
		vars = append(vars, v)
	}
	return vars, errs
}
