package main

import (
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
)

// metric is one figure of a run, named for the comparison table.
type metric struct {
	name  string
	value float64
}

// metrics lists the figures of one directory of results (results.txt and
// bench.txt, as run.sh and compare.sh write them) in report order.
func metrics(dir string) ([]metric, error) {
	runs, err := readRuns(filepath.Join(dir, "results.txt"))
	if err != nil {
		return nil, err
	}
	bench, err := readBench(filepath.Join(dir, "bench.txt"))
	if err != nil {
		return nil, err
	}
	var ms []metric
	groups, keys := groupRuns(runs, "instr")
	for _, k := range keys {
		variant, impl, _ := splitKey(k)
		ms = append(ms, metric{"instr/call " + variant + " " + impl, groups[k].median("instr_per_call")})
	}
	for _, impl := range benchOrder(bench) {
		st := bench[impl]
		ms = append(ms,
			metric{"allocs/op " + impl, medianOf(st.allocs)},
			metric{"B/op " + impl, medianOf(st.bytes)},
			metric{"ns/op " + impl, medianOf(st.ns)})
	}
	for _, mode := range []string{"http", "stdio"} {
		groups, keys := groupRuns(runs, mode)
		for _, k := range keys {
			variant, impl, c := splitKey(k)
			ms = append(ms, metric{"req/s " + mode + " " + variant + " " + impl + " c=" + c, groups[k].median("rps")})
		}
	}
	return ms, nil
}

// compare prints the figures of two result directories side by side, with
// B/A for each; a figure missing on one side is NA.
func compare(w io.Writer, labelA, dirA, labelB, dirB string) error {
	a, err := metrics(dirA)
	if err != nil {
		return err
	}
	b, err := metrics(dirB)
	if err != nil {
		return err
	}
	inB := map[string]float64{}
	for _, m := range b {
		inB[m.name] = m.value
	}
	seen := map[string]bool{}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "metric\t%s\t%s\tB/A\t\n", labelA, labelB)
	row := func(name string, x, y float64) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", name, orNA(x, "%.0f"), orNA(y, "%.0f"), ratio(y, x))
	}
	for _, m := range a {
		seen[m.name] = true
		row(m.name, m.value, inB[m.name])
	}
	for _, m := range b {
		if !seen[m.name] {
			row(m.name, 0, m.value)
		}
	}
	fmt.Fprintln(tw, "(instr/call is deterministic; ns/op and req/s vary with the machine's load)\t\t\t\t")
	return tw.Flush()
}
