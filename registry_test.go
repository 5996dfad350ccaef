package ferry

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

type testEntry string

func (e testEntry) key() string  { return string(e) }
func (e testEntry) wire() []byte { return []byte(e) }

func TestRegistryPagesInKeyOrder(t *testing.T) {
	var r registry[testEntry]
	for _, k := range []string{"d", "b", "a", "c", "e"} {
		r.add(testEntry(k))
	}
	var got []string
	cursor := ""
	for range 10 {
		items, next, err := r.page(cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			got = append(got, string(it))
		}
		if next == "" {
			break
		}
		cursor = next
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
	_, next, _ := r.page("", 2) // a, b
	r.remove("b")
	r.remove("c")
	items, _, err := r.page(next, 2)
	if err != nil || len(items) != 1 || items[0] != "d" {
		t.Errorf("page after removal = %v, %v; want [d]", items, err)
	}
}

func TestRegistryRejectsBadCursor(t *testing.T) {
	var r registry[testEntry]
	r.add("a")
	_, _, err := r.page("!!not base64!!", 2)
	if CodeOf(err) != CodeInvalidParams {
		t.Errorf("bad cursor: got %v, want code %d", err, CodeInvalidParams)
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
