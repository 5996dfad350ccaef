package ferry

import (
	"context"
	"testing"
)

// Request state keys never collide across names and callers: the parts are
// length-prefixed, so that NUL in a name cannot forge a subject.
func TestStateKeyIsUnambiguous(t *testing.T) {
	anon := context.Background()
	as := func(subject string) context.Context {
		return WithPrincipal(context.Background(), &Principal{Subject: subject})
	}
	keys := []struct {
		name string
		ctx  context.Context
		key  string
	}{
		{"x, anonymous", anon, "x"},
		{"x, alice", as("alice"), "x"},
		{"x NUL alice, anonymous", anon, "x\x00alice"},
		{"x NUL, alice", as("alice"), "x\x00"},
		{"x NUL p alice, anonymous", anon, "\x00\x01xpalice"},
		{"x, empty subject", as(""), "x"},
		{"xa, lice", as("lice"), "xa"},
		{"NUL x, anonymous", anon, "\x00x"},
	}
	seen := map[string]string{}
	for _, k := range keys {
		got := stateKey(k.ctx, k.key)
		if other, dup := seen[got]; dup {
			t.Errorf("%s and %s share the state key %q", other, k.name, got)
		}
		seen[got] = k.name
	}
	if got := stateKey(anon, "x"); got != "x" {
		t.Errorf("anonymous key = %q; want the name itself (no allocation on the common path)", got)
	}
}
