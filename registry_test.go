package ferry

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

type testEntry string

func (e testEntry) key() string   { return string(e) }
func (e testEntry) wire() []byte  { return []byte(e) }
func (e testEntry) guarded() bool { return false }

func (e testEntry) groupNames() []string { return nil }

func TestRegistryPagesInKeyOrder(t *testing.T) {
	var r registry[testEntry]
	for _, k := range []string{"d", "b", "a", "c", "e"} {
		r.add(testEntry(k))
	}
	var got []string
	after := ""
	for range 10 {
		items, more := r.page(after, 2)
		for _, it := range items {
			got = append(got, string(it))
		}
		if !more {
			break
		}
		after = items[len(items)-1].key()
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d", "e"}, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
}

func TestRegistryCursorSurvivesRemoval(t *testing.T) {
	var r registry[testEntry]
	for _, k := range []string{"a", "b", "c", "d"} {
		r.add(testEntry(k))
	}
	first, _ := r.page("", 2) // a, b
	after := first[len(first)-1].key()
	r.remove("b")
	r.remove("c")
	items, more := r.page(after, 2)
	if more || len(items) != 1 || items[0] != "d" {
		t.Errorf("page after removal = %v, more %t; want [d]", items, more)
	}
}

// A hidden entry takes no place in a page: every page is full until the
// last, and "more" is true only when a visible entry follows.
func TestFilterPageSkipsHiddenEntries(t *testing.T) {
	all := []testEntry{"a", "b", "c", "d", "e", "f"}
	visible := func(e testEntry) bool { return e != "b" && e != "e" && e != "f" }
	tests := []struct {
		name     string
		rest     []testEntry
		want     []testEntry
		wantMore bool
	}{
		{"first page", all, []testEntry{"a", "c"}, true},
		{"last visible entry, hidden ones after", all[3:], []testEntry{"d"}, false},
		{"only hidden", all[4:], nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more := filterPage(slices.Clone(tt.rest), 2, visible)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" || more != tt.wantMore {
				t.Errorf("page (-want +got):\n%s\nmore = %t, want %t", diff, more, tt.wantMore)
			}
		})
	}
}

// A cursor is the server's own: one it did not sign, one signed for
// another list, or one that is only the base64 of a key (the format
// before cursors were signed) is refused with -32602, never answered with
// an empty page.
func TestReadCursorRefusesCursorsTheServerDidNotIssue(t *testing.T) {
	srv := NewServer("s", "1", &ServerOptions{SigningKeys: [][]byte{[]byte("k1")}})
	other := NewServer("s", "1", &ServerOptions{SigningKeys: [][]byte{[]byte("k2")}})
	good := srv.keys.sign(cursorPurpose+"tools", []byte("echo"))
	if got, err := srv.readCursor("tools", &good); err != nil || got != "echo" {
		t.Fatalf("readCursor(own cursor) = %q, %v; want echo", got, err)
	}
	for _, bad := range []string{
		"ZWNobw", // base64("echo"), unsigned
		"!!not a cursor!!",
		srv.keys.sign(cursorPurpose+"prompts", []byte("echo")),
		other.keys.sign(cursorPurpose+"tools", []byte("echo")),
		srv.keys.sign(cursorPurpose+"tools", nil),
	} {
		if _, err := srv.readCursor("tools", &bad); CodeOf(err) != CodeInvalidParams {
			t.Errorf("readCursor(%q) = %v; want code %d", bad, err, CodeInvalidParams)
		}
	}
}

func TestRegistryAddReplaces(t *testing.T) {
	var r registry[testEntry]
	r.add("a")
	r.add("a")
	if r.len() != 1 {
		t.Errorf("len = %d after adding the same key twice, want 1", r.len())
	}
}
