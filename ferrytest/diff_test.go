package ferrytest

import (
	"fmt"
	"strings"
	"testing"
)

func TestLineDiff(t *testing.T) {
	if d := lineDiff("a\nb\n", "a\nb\n"); d != "" {
		t.Errorf("equal files: diff %q", d)
	}
	if d, want := lineDiff("a\nb\nc\nd\ne\nf\n", "a\nb\nc\nX\ne\nf\n"), "  b\n  c\n- d\n+ X\n  e\n  f\n"; d != want {
		t.Errorf("one changed line: diff\n%s\nwant\n%s", d, want)
	}
	if d, want := lineDiff("a\nb\n", "a\nb\nc\n"), "  a\n  b\n+ c\n  \n"; d != want {
		t.Errorf("an added line: diff %q, want %q", d, want)
	}
	// A golden file of many tools is long; one change in it still shows
	// as a diff, not as a line number.
	lines := make([]string, 3*maxDiffLines)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i)
	}
	a := strings.Join(lines, "\n")
	lines[2*maxDiffLines] = "changed"
	b := strings.Join(lines, "\n")
	want := fmt.Sprintf("  line %d\n  line %d\n- line %d\n+ changed\n  line %d\n  line %d\n",
		2*maxDiffLines-2, 2*maxDiffLines-1, 2*maxDiffLines, 2*maxDiffLines+1, 2*maxDiffLines+2)
	if d := lineDiff(a, b); d != want {
		t.Errorf("one change in a long file: diff\n%s\nwant\n%s", d, want)
	}
	// A change too long to compare names where it starts.
	c := strings.Repeat("x\n", 2*maxDiffLines)
	if d := lineDiff("start\n"+c, "start\n"+strings.Repeat("y\n", 2*maxDiffLines)); d != "first difference at line 2" {
		t.Errorf("a long change: diff %q", d)
	}
}
