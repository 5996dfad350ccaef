package protoschema

import (
	"strconv"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// anyRules applies buf.validate Any rules: in as an enum of "@type" (in
// the keyword target t, whose properties are those of n), both as
// sentences on n.
func anyRules(n, t *node, ar *validate.AnyRules) {
	if in := ar.GetIn(); len(in) > 0 {
		n.note("Its @type is one of " + strings.Join(in, ", ") + ".")
		if t == n && len(n.Properties) > 0 && n.Properties[0].name == "@type" {
			n.Properties[0].schema.Enum = anySlice(in)
		}
	}
	if notIn := ar.GetNotIn(); len(notIn) > 0 {
		n.note("Its @type is none of " + strings.Join(notIn, ", ") + ".")
		if t == n && len(n.Properties) > 0 && n.Properties[0].name == "@type" {
			n.Properties[0].schema.addNot(&node{Enum: anySlice(notIn)})
		}
	}
}

// orderedRules are the const and bound rules buf.validate has for a
// Duration and for a Timestamp.
type orderedRules[T any] interface {
	HasConst() bool
	GetConst() T
	HasGt() bool
	GetGt() T
	HasGte() bool
	GetGte() T
	HasLt() bool
	GetLt() T
	HasLte() bool
	GetLte() T
}

// orderNotes says r's const and bounds in sentences, each value written
// by s, with the words of its order: above for gt, atLeast for gte, below
// for lt and atMost for lte.
func orderNotes[T any](r orderedRules[T], s func(T) string, above, atLeast, below, atMost string) []string {
	var notes []string
	if r.HasConst() {
		notes = append(notes, "Must be exactly "+s(r.GetConst())+".")
	}
	if r.HasGt() {
		notes = append(notes, "Must be "+above+" "+s(r.GetGt())+".")
	}
	if r.HasGte() {
		notes = append(notes, "Must be "+atLeast+" "+s(r.GetGte())+".")
	}
	if r.HasLt() {
		notes = append(notes, "Must be "+below+" "+s(r.GetLt())+".")
	}
	if r.HasLte() {
		notes = append(notes, "Must be "+atMost+" "+s(r.GetLte())+".")
	}
	return notes
}

// durationNotes says buf.validate Duration rules in sentences: a duration
// string has no numeric keyword.
func durationNotes(dr *validate.DurationRules) []string {
	notes := orderNotes(dr, durationJSON, "longer than", "at least", "shorter than", "at most")
	if in := dr.GetIn(); len(in) > 0 {
		notes = append(notes, "Must be one of "+joinMap(in, durationJSON)+".")
	}
	if notIn := dr.GetNotIn(); len(notIn) > 0 {
		notes = append(notes, "Must not be "+joinMap(notIn, durationJSON)+".")
	}
	return notes
}

// timestampNotes says buf.validate Timestamp rules in sentences.
func timestampNotes(tr *validate.TimestampRules) []string {
	s := func(t *timestamppb.Timestamp) string {
		return t.AsTime().UTC().Format("2006-01-02T15:04:05.999999999Z07:00")
	}
	notes := orderNotes(tr, s, "after", "at or after", "before", "at or before")
	if tr.GetGtNow() {
		notes = append(notes, "Must be in the future.")
	}
	if tr.GetLtNow() {
		notes = append(notes, "Must be in the past.")
	}
	if tr.HasWithin() {
		notes = append(notes, "Must be within "+durationJSON(tr.GetWithin())+" of now.")
	}
	return notes
}

// fieldMaskNotes says buf.validate FieldMask rules in sentences.
func fieldMaskNotes(fr *validate.FieldMaskRules) []string {
	var notes []string
	if fr.HasConst() {
		notes = append(notes, "Must be exactly "+strconv.Quote(strings.Join(fr.GetConst().GetPaths(), ","))+".")
	}
	if in := fr.GetIn(); len(in) > 0 {
		notes = append(notes, "Its paths must be among "+strings.Join(in, ", ")+".")
	}
	if notIn := fr.GetNotIn(); len(notIn) > 0 {
		notes = append(notes, "Its paths must not include "+strings.Join(notIn, ", ")+".")
	}
	return notes
}

func joinMap[T any](in []T, f func(T) string) string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return strings.Join(out, ", ")
}

// durationJSON writes d as protojson does, quoted: "3600s", "1.500s".
func durationJSON(d *durationpb.Duration) string {
	data, err := protojson.Marshal(d)
	if err != nil {
		return strconv.Quote(d.AsDuration().String())
	}
	return string(data)
}
