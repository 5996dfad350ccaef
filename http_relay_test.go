package ferry

import (
	"encoding/json"
	"testing"
)

// Only answers shaped like the ids of the server's own questions are
// relayed: a client cannot make every replica decode its garbage.
func TestIsCallID(t *testing.T) {
	for range 100 {
		if id := newCallID(); !isCallID(id) {
			t.Fatalf("isCallID(%s) = false", id)
		}
	}
	for _, id := range []string{``, `1`, `"ferry-"`, `"ferry-AAAAAAAAAAAAAAAAAAAAAA`, `"other-AAAAAAAAAAAAAAAAAAAAAA"`, `"ferry-AAAAAAAAAAAAAAAAAAAAAAA"`} {
		if isCallID(json.RawMessage(id)) {
			t.Errorf("isCallID(%s) = true", id)
		}
	}
}
