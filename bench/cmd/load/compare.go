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
	inA, inB := map[string]float64{}, map[string]float64{}
	for _, m := range a {
		inA[m.name] = m.value
	}
	for _, m := range b {
		inB[m.name] = m.value
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "metric\t%s\t%s\tB/A\t\n", labelA, labelB)
	cell := func(m map[string]float64, name string) string {
		if v, ok := m[name]; ok {
			return fmt.Sprintf("%.0f", v)
		}
		return "NA"
	}
	row := func(name string) {
		r := "NA"
		x, okA := inA[name]
		y, okB := inB[name]
		switch {
		case okA && okB && x == y:
			r = "1.00" // zero allocations on both sides included
		case okA && okB:
			r = ratio(y, x)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", name, cell(inA, name), cell(inB, name), r)
	}
	for _, m := range a {
		row(m.name)
	}
	for _, m := range b {
		if _, ok := inA[m.name]; !ok {
			row(m.name)
		}
	}
	fmt.Fprintln(tw, "(instr/call is deterministic; ns/op and req/s vary with the machine's load)\t\t\t\t")
	return tw.Flush()
}
