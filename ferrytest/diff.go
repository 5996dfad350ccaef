package ferrytest

import (
	"fmt"
	"strings"
)

// maxDiffLines bounds the changed part (the lines between those both files
// start and end with) that lineDiff compares line by line; beyond it, the
// diff names the first line that differs.
const maxDiffLines = 4000

// lineDiff returns a diff of the lines of a and b: "-" for a line only
// in a, "+" for one only in b, and up to two unchanged lines around each
// change. It is empty when a and b are equal.
func lineDiff(a, b string) string {
	if a == b {
		return ""
	}
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// The lines both files start and end with are kept out of the table,
	// which is quadratic: a change in a long file costs its own size.
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	head, tail := x[:pre], x[len(x)-suf:]
	x, y = x[pre:len(x)-suf], y[pre:len(y)-suf]
	if len(x) > maxDiffLines || len(y) > maxDiffLines {
		return fmt.Sprintf("first difference at line %d", pre+1)
	}
	// lcs[i][j] is the length of the longest common subsequence of x[i:]
	// and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	ops := make([]line, 0, pre+len(x)+len(y)+suf)
	for _, l := range head {
		ops = append(ops, line{' ', l})
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, line{' ', x[i]})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, line{'-', x[i]})
			i++
		default:
			ops = append(ops, line{'+', y[j]})
			j++
		}
	}
	for _, l := range tail {
		ops = append(ops, line{' ', l})
	}
	var sb strings.Builder
	const around = 2
	last := -1
	for k, op := range ops {
		near := false
		for d := max(0, k-around); d <= min(len(ops)-1, k+around); d++ {
			near = near || ops[d].op != ' '
		}
		if !near {
			continue
		}
		if last >= 0 && k > last+1 {
			sb.WriteString("...\n")
		}
		last = k
		sb.WriteByte(op.op)
		sb.WriteByte(' ')
		sb.WriteString(op.text)
		sb.WriteByte('\n')
	}
	return sb.String()
}
