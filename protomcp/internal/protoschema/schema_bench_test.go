package protoschema

import (
	"testing"

	"buf.build/go/protovalidate"
)

// BenchmarkInput measures building a schema, which the generator does once
// per method and the runtime descriptor path once per method at start-up.
func BenchmarkInput(b *testing.B) {
	reg := compileFiles(b)
	for _, name := range []string{"Envelope", "StringRules", "Node"} {
		md := message(b, reg, name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Input(md); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInputSharedValidator is BenchmarkInput with one protovalidate
// validator shared by every call, as a caller building a whole service's
// schemas does.
func BenchmarkInputSharedValidator(b *testing.B) {
	reg := compileFiles(b)
	v, err := protovalidate.New()
	if err != nil {
		b.Fatal(err)
	}
	o := &Options{Validator: v}
	md := message(b, reg, "StringRules")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.Input(md); err != nil {
			b.Fatal(err)
		}
	}
}
