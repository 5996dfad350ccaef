package ferry

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGroupSetAdmits(t *testing.T) {
	t.Parallel()
	var all *groupSet
	if !all.admits(nil) || !all.admits([]string{"x"}) {
		t.Error("a nil set serves every entry, grouped or not")
	}
	some := &groupSet{"a", "b"}
	if some.admits(nil) {
		t.Error("an endpoint of groups serves no ungrouped entry")
	}
	if !some.admits([]string{"z", "b"}) || some.admits([]string{"c"}) {
		t.Error("an entry is served when one of its groups is")
	}
}

func TestCountGroups(t *testing.T) {
	t.Parallel()
	var m map[string]int
	m = countGroups(m, []string{"a", "b"}, 1)
	m = countGroups(m, []string{"a"}, 1)
	m = countGroups(m, []string{"b"}, -1)
	if diff := cmp.Diff(map[string]int{"a": 2}, m); diff != "" {
		t.Errorf("a group without entries is gone (-want +got):\n%s", diff)
	}
	if countGroups(nil, nil, 1) != nil {
		t.Error("no groups make no map")
	}
}

func TestValidGroupName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"a", "orders", "Billing_v2", "a.b-c"} {
		if err := ValidGroupName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	long := string(make([]byte, maxGroupName+1))
	for _, bad := range []string{"", "a b", "a/b", "é", long, "../x"} {
		if ValidGroupName(bad) == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}
