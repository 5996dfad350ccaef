package ferry

import (
	"strings"
	"testing"
	"time"
)

func TestKeyringRotation(t *testing.T) {
	old := newKeyring([][]byte{[]byte("old-key")})
	token := old.sign("session", []byte("payload"))
	rotated := newKeyring([][]byte{[]byte("new-key"), []byte("old-key")})
	if p, err := rotated.verify("session", token); err != nil || string(p) != "payload" {
		t.Fatalf("rotated keyring refused a token of the old key: %q, %v", p, err)
	}
	fresh := newKeyring([][]byte{[]byte("new-key")})
	if _, err := fresh.verify("session", token); err == nil {
		t.Fatal("a keyring without the old key accepted its token")
	}
}

func TestKeyringBindsPurpose(t *testing.T) {
	k := newKeyring(nil)
	token := k.sign("session", []byte("x"))
	if _, err := k.verify("request-state", token); err == nil {
		t.Fatal("a session token was accepted as request state")
	}
}

func TestKeyringRejectsTampering(t *testing.T) {
	k := newKeyring(nil)
	token := k.sign("session", []byte("payload"))
	for _, bad := range []string{"", "nodot", token + "x", "A" + token[1:], strings.Replace(token, ".", ".A", 1)} {
		if _, err := k.verify("session", bad); err == nil {
			t.Errorf("verify(%q) accepted a tampered token", bad)
		}
	}
}

func TestSessionTokenCarriesVersionAndCapabilities(t *testing.T) {
	k := newKeyring(nil)
	id := k.issueSession(Version20250326, clientCaps{elicitation: true}, nil)
	for _, c := range id {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q has a character outside visible ASCII", id)
		}
	}
	tok, err := k.checkSession(id, time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tok.version != Version20250326 || !tok.caps.elicitation || tok.caps.sampling {
		t.Errorf("token = %+v; want version 2025-03-26 with elicitation only", tok)
	}
	if _, err := k.checkSession(id, -time.Second, nil); err == nil {
		t.Error("an expired token was accepted")
	}
}

// A token issued to a principal serves that principal only: another
// subject, an anonymous caller, or a subject the memo has not seen are
// refused, whether or not the token is memoized, and a key rotation keeps
// the binding. A token issued anonymously serves anyone.
func TestSessionTokenBindsToPrincipal(t *testing.T) {
	alice, bob, empty := &Principal{Subject: "alice"}, &Principal{Subject: "bob"}, &Principal{}
	k := newKeyring([][]byte{[]byte("old")})
	id := k.issueSession(Version20251125, clientCaps{}, alice)
	if id == k.issueSession(Version20251125, clientCaps{}, nil) {
		t.Fatal("bound and unbound tokens are the same")
	}
	rotated := newKeyring([][]byte{[]byte("new"), []byte("old")})
	tests := []struct {
		name   string
		k      *keyring
		caller *Principal
		ok     bool
	}{
		{"another subject before the memo", k, bob, false},
		{"its subject", k, alice, true},
		{"its subject again, memoized", k, alice, true},
		{"another subject, memoized", k, bob, false},
		{"an empty subject", k, empty, false},
		{"anonymous", k, nil, false},
		{"its subject after a key rotation", rotated, alice, true},
		{"another subject after a key rotation", rotated, bob, false},
	}
	for _, tt := range tests {
		_, err := tt.k.checkSession(id, time.Hour, tt.caller)
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v, want ok %t", tt.name, err, tt.ok)
		}
	}
	open := k.issueSession(Version20251125, clientCaps{}, nil)
	for _, caller := range []*Principal{nil, alice, bob} {
		if _, err := k.checkSession(open, time.Hour, caller); err != nil {
			t.Errorf("unbound token presented by %v: %v", caller, err)
		}
	}
}

// A token is bound to its principal's issuer as well as its subject: the
// same subject from another issuer, or from none, is another caller.
func TestSessionTokenBindsToIssuer(t *testing.T) {
	k := newKeyring([][]byte{[]byte("old")})
	keyAlice := &Principal{Issuer: "api-key", Subject: "alice"}
	for _, tt := range []struct {
		name    string
		issued  *Principal
		callers []*Principal
	}{
		{"an API key's alice", keyAlice, []*Principal{{Issuer: "https://idp", Subject: "alice"}, {Subject: "alice"}, {Issuer: "api-keyalice"}, {Issuer: "api-", Subject: "keyalice"}}},
		{"alice without an issuer", &Principal{Subject: "alice"}, []*Principal{keyAlice, {Issuer: "", Subject: "aliceapi-key"}}},
	} {
		id := k.issueSession(Version20251125, clientCaps{}, tt.issued)
		for _, memoized := range []bool{false, true} {
			if _, err := k.checkSession(id, time.Hour, tt.issued); err != nil {
				t.Errorf("%s on its own session: %v", tt.name, err)
			}
			for _, c := range tt.callers {
				if _, err := k.checkSession(id, time.Hour, c); err == nil {
					t.Errorf("%s's session (memoized %t) serves %+v", tt.name, memoized, c)
				}
			}
		}
		rotated := newKeyring([][]byte{[]byte("new"), []byte("old")})
		if _, err := rotated.checkSession(id, time.Hour, tt.issued); err != nil {
			t.Errorf("%s after a key rotation: %v", tt.name, err)
		}
	}
}

// A principal without a subject is anonymous, for a stateless session id
// as for a stateful session: its id is not bound, and serves any caller.
func TestSessionOfAPrincipalWithoutSubjectIsNotBound(t *testing.T) {
	k := newKeyring([][]byte{[]byte("k")})
	id := k.issueSession(Version20251125, clientCaps{}, &Principal{})
	for _, p := range []*Principal{nil, {}, {Subject: "bob"}} {
		if _, err := k.checkSession(id, time.Hour, p); err != nil {
			t.Errorf("checkSession as %+v: %v", p, err)
		}
	}
}
