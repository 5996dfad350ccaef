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
	id := k.issueSession(Version20250326, clientCaps{elicitation: true})
	for _, c := range id {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q has a character outside visible ASCII", id)
		}
	}
	tok, err := k.checkSession(id, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if tok.version != Version20250326 || !tok.caps.elicitation || tok.caps.sampling {
		t.Errorf("token = %+v; want version 2025-03-26 with elicitation only", tok)
	}
	if _, err := k.checkSession(id, -time.Second); err == nil {
		t.Error("an expired token was accepted")
	}
}
