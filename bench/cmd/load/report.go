package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// implOrder is the column order of the report.
var implOrder = []string{"ferry", "ferrytyped", "gosdk", "mcpgo", "limit", "floor"}

// variantOrder is the row order of session kinds.
var variantOrder = []string{"stateless", "stateful", "modern", "stdio"}

func variantRank(v string) int {
	if i := slices.Index(variantOrder, v); i >= 0 {
		return i
	}
	return len(variantOrder) // live sessions and others last
}

// variantOf is a run's session kind; lines written before variants
// existed were stateless HTTP or stdio.
func variantOf(r run) string {
	if v := r.s["variant"]; v != "" {
		return v
	}
	if r.s["mode"] == "stdio" {
		return "stdio"
	}
	return "stateless"
}

// run is one RESULT line.
type run struct {
	s map[string]string
	f map[string]float64
}

func readRuns(path string) ([]run, error) {
	f, err := os.Open(path) //nolint:gosec // a results file the operator named (-out, -a, -b)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []run
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "RESULT ")
		if !ok {
			continue
		}
		r := run{s: map[string]string{}, f: map[string]float64{}}
		for _, kv := range strings.Fields(rest) {
			k, v, _ := strings.Cut(kv, "=")
			r.s[k] = v
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				r.f[k] = x
			}
		}
		runs = append(runs, r)
	}
	return runs, sc.Err()
}

// group holds the runs of one mode, implementation and concurrency.
type group struct {
	runs []run
}

func (g *group) median(key string) float64 {
	var xs []float64
	for _, r := range g.runs {
		xs = append(xs, r.f[key])
	}
	slices.Sort(xs)
	if len(xs) == 0 {
		return 0
	}
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

func (g *group) sum(key string) float64 {
	var t float64
	for _, r := range g.runs {
		t += r.f[key]
	}
	return t
}

// groupRuns groups the runs of one mode by "variant impl c" (c is empty
// for modes without concurrency), in report order.
func groupRuns(runs []run, mode string) (map[string]*group, []string) {
	groups := map[string]*group{}
	var keys []string
	for _, r := range runs {
		if r.s["mode"] != mode {
			continue
		}
		k := groupKey(variantOf(r), r.s["impl"], r.s["c"])
		if groups[k] == nil {
			groups[k] = &group{}
			keys = append(keys, k)
		}
		groups[k].runs = append(groups[k].runs, r)
	}
	slices.SortFunc(keys, func(a, b string) int {
		av, ai, ac := splitKey(a)
		bv, bi, bc := splitKey(b)
		if av != bv {
			if d := variantRank(av) - variantRank(bv); d != 0 {
				return d
			}
			return strings.Compare(av, bv)
		}
		x, _ := strconv.Atoi(ac)
		y, _ := strconv.Atoi(bc)
		if x != y {
			return x - y
		}
		return implRank(ai) - implRank(bi)
	})
	return groups, keys
}

func groupKey(variant, impl, c string) string { return variant + " " + impl + " " + c }

func splitKey(k string) (variant, impl, c string) {
	f := strings.SplitN(k, " ", 3)
	return f[0], f[1], f[2]
}

func implRank(name string) int {
	if i := slices.Index(implOrder, name); i >= 0 {
		return i
	}
	return len(implOrder)
}

// benchLine matches go test -bench output with -benchmem.
var benchLine = regexp.MustCompile(`^BenchmarkToolsCall/(\w+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+(\d+) B/op\s+(\d+) allocs/op`)

type benchStat struct{ ns, bytes, allocs []float64 }

func readBench(path string) (map[string]*benchStat, error) {
	stats := map[string]*benchStat{}
	if path == "" {
		return stats, nil
	}
	f, err := os.Open(path) //nolint:gosec // a go test -bench output the operator named (-bench, -a, -b)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		st := stats[m[1]]
		if st == nil {
			st = &benchStat{}
			stats[m[1]] = st
		}
		for i, dst := range []*[]float64{&st.ns, &st.bytes, &st.allocs} {
			x, _ := strconv.ParseFloat(m[i+2], 64)
			*dst = append(*dst, x)
		}
	}
	return stats, sc.Err()
}

func medianOf(xs []float64) float64 {
	g := group{}
	for _, x := range xs {
		g.runs = append(g.runs, run{f: map[string]float64{"x": x}})
	}
	return g.median("x")
}

// report prints the summary tables and the final ratio lines.
func report(w io.Writer, resultsPath, benchPath string) error {
	runs, err := readRuns(resultsPath)
	if err != nil {
		return err
	}
	bench, err := readBench(benchPath)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, mode := range []string{"http", "stdio"} {
		groups, keys := groupRuns(runs, mode)
		if len(keys) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s tools/call (median of runs; c = concurrent clients or requests in flight)\n", mode)
		fmt.Fprintln(tw, "session\timpl\tc\treq/s\tp50 µs\tp99 µs\tserver CPU µs/call\tserver CPU %\tload CPU %\tother CPU %\terrors\truns\t")
		for _, k := range keys {
			g := groups[k]
			variant, impl, c := splitKey(k)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t\n", variant, impl, c,
				g.median("rps"), g.median("p50_us"), g.median("p99_us"), g.median("server_cpu_us"),
				g.median("server_cpu_pct"), g.median("load_cpu_pct"), g.median("other_cpu_pct"), g.sum("errors"), len(g.runs))
		}
		tw.Flush()
		warnBusy(w, groups)
	}
	reportInstr(w, tw, runs)
	if len(bench) > 0 {
		fmt.Fprintln(w, "\nin-process tools/call through the http.Handler (testing.B, median of counts; _modern = 2026-07-28)")
		fmt.Fprintln(tw, "impl\tns/op\tB/op\tallocs/op\t")
		for _, impl := range benchOrder(bench) {
			st := bench[impl]
			fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t\n", impl, medianOf(st.ns), medianOf(st.bytes), medianOf(st.allocs))
		}
		tw.Flush()
	}
	reportSessions(w, tw, runs)
	fmt.Fprintln(w)
	fmt.Fprintln(w, typedLine(runs, bench))
	fmt.Fprintln(w, instrLine(runs))
	fmt.Fprintln(w, finalLine(runs, bench))
	return nil
}

// benchOrder lists the benchmarked implementations in report order, each
// followed by its variants ("ferry", "ferry_modern", ...).
func benchOrder(bench map[string]*benchStat) []string {
	names := slices.Collect(maps.Keys(bench))
	slices.SortFunc(names, func(a, b string) int {
		ab, av, _ := strings.Cut(a, "_")
		bb, bv, _ := strings.Cut(b, "_")
		if d := implRank(ab) - implRank(bb); d != 0 {
			return d
		}
		return strings.Compare(ab+" "+av, bb+" "+bv)
	})
	return names
}

// instrPerCall is the median instructions per call of one variant and
// implementation, or 0 if it was not measured.
func instrPerCall(groups map[string]*group, variant, impl string) float64 {
	if g := groups[groupKey(variant, impl, "")]; g != nil {
		return g.median("instr_per_call")
	}
	return 0
}

// instrBaseline is the variant of the limit a variant is compared with:
// the limit keeps no sessions, so stateful and live-session Ferry are
// compared with the stateless limit.
func instrBaseline(variant string) string {
	if variant == "modern" || variant == "stdio" {
		return variant
	}
	return "stateless"
}

// reqPerSec is the median req/s of the matching throughput runs at c=16
// (HTTP) or any in-flight count (stdio), or 0.
func reqPerSec(runs []run, variant, impl string) float64 {
	mode, c := "http", "16"
	if variant == "stdio" {
		mode, c = "stdio", ""
	}
	g := &group{}
	for _, r := range runs {
		if r.s["mode"] == mode && variantOf(r) == variant && r.s["impl"] == impl && (c == "" || r.s["c"] == c) {
			g.runs = append(g.runs, r)
		}
	}
	if len(g.runs) == 0 {
		return 0
	}
	return g.median("rps")
}

func reportInstr(w io.Writer, tw *tabwriter.Writer, runs []run) {
	groups, keys := groupRuns(runs, "instr")
	if len(keys) == 0 {
		return
	}
	fmt.Fprintln(w, "\ninstructions per tools/call under callgrind ((Ir(n2)-Ir(n1))/(n2-n1), one client; req/s: HTTP c=16 or stdio)")
	fmt.Fprintln(tw, "session\timpl\tinstr/call\tx limit\tx floor\treq/s\truns\t")
	for _, k := range keys {
		g := groups[k]
		variant, impl, _ := splitKey(k)
		per := g.median("instr_per_call")
		floor := 0.0 // the floor serves HTTP only
		if variant != "stdio" {
			floor = instrPerCall(groups, "stateless", "floor")
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%s\t%d\t\n", variant, impl, per,
			ratio(per, instrPerCall(groups, instrBaseline(variant), "limit")), ratio(per, floor),
			orNA(reqPerSec(runs, variant, impl), "%.0f"), len(g.runs))
	}
	tw.Flush()
}

// instrLine summarizes Ferry's instructions per call as ratios to the
// limit in each session kind, and to the bare net/http floor.
func instrLine(runs []run) string {
	groups, keys := groupRuns(runs, "instr")
	var variants []string
	for _, k := range keys {
		if v, impl, _ := splitKey(k); impl == "ferry" {
			variants = append(variants, v)
		}
	}
	var b strings.Builder
	b.WriteString("instr:")
	for _, v := range variants {
		fmt.Fprintf(&b, " ferry/limit[%s]=%s", v, ratio(instrPerCall(groups, v, "ferry"), instrPerCall(groups, instrBaseline(v), "limit")))
	}
	fmt.Fprintf(&b, " ferry/floor=%s", ratio(instrPerCall(groups, "stateless", "ferry"), instrPerCall(groups, "stateless", "floor")))
	// The same ratio from the server's CPU time at c=16: noisy, for reference.
	http, _ := groupRuns(runs, "http")
	cpu := func(impl string) float64 {
		if g := http[groupKey("stateless", impl, "16")]; g != nil {
			return g.median("server_cpu_us")
		}
		return 0
	}
	fmt.Fprintf(&b, " cpu:ferry/floor=%s", ratio(cpu("ferry"), cpu("floor")))
	return b.String()
}

// ratio formats a/b, or NA if either is unknown.
func ratio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "NA"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func orNA(x float64, format string) string {
	if x <= 0 {
		return "NA"
	}
	return fmt.Sprintf(format, x)
}

// busyPct is the median CPU use by other processes above which a
// measurement is flagged as disturbed.
const busyPct = 25

func warnBusy(w io.Writer, groups map[string]*group) {
	var busy int
	for _, g := range groups {
		if g.median("other_cpu_pct") > busyPct {
			busy++
		}
	}
	if busy > 0 {
		fmt.Fprintf(w, "WARNING: in %d of %d rows other processes used over %d%% of a core; those numbers are disturbed\n",
			busy, len(groups), busyPct)
	}
}

func reportSessions(w io.Writer, tw *tabwriter.Writer, runs []run) {
	groups, keys := groupRuns(runs, "sessions")
	if len(keys) == 0 {
		return
	}
	fmt.Fprintln(w, "\nstateful sessions (initialize only), server RSS and Go heap after GC")
	fmt.Fprintln(tw, "impl\tsessions\tRSS idle MiB\tRSS delta MiB\tKiB/session (RSS)\tKiB/session (heap)\tgoroutines idle\tgoroutines\terrors\t")
	for _, k := range keys {
		g := groups[k]
		_, impl, _ := splitKey(k)
		n := g.median("sessions")
		fmt.Fprintf(tw, "%s\t%.0f\t%.1f\t%.1f\t%.2f\t%.2f\t%.0f\t%.0f\t%.0f\t\n", impl, n,
			g.median("rss_base_kib")/1024, g.median("rss_delta_kib")/1024, g.median("rss_delta_kib")/n,
			g.median("heap_delta")/1024/n, g.median("goroutines_base"), g.median("goroutines"), g.sum("errors"))
	}
	tw.Flush()
}

// finalLine is the one-line summary: Ferry's stateless HTTP throughput at
// c=16 relative to each other implementation, and Ferry's allocations per
// in-process tools/call. A value is NA when a side is missing or had errors.
func finalLine(runs []run, bench map[string]*benchStat) string {
	return summaryFor("ferry", runs, bench)
}

// typedLine is the same summary for Ferry's typed tools, whose arguments are
// validated against the schema derived from the input type on every call.
func typedLine(runs []run, bench map[string]*benchStat) string {
	return "validated: " + summaryFor("ferrytyped", runs, bench)
}

// summaryFor is the summary line of one Ferry implementation.
func summaryFor(impl string, runs []run, bench map[string]*benchStat) string {
	groups, _ := groupRuns(runs, "http")
	rps := func(impl string) (float64, bool) {
		g := groups[groupKey("stateless", impl, "16")]
		if g == nil || g.sum("errors") > 0 {
			return 0, false
		}
		return g.median("rps"), true
	}
	ratio := func(other string) string {
		f, ok1 := rps(impl)
		o, ok2 := rps(other)
		if !ok1 || !ok2 || o == 0 {
			return "NA"
		}
		return fmt.Sprintf("%.2f", f/o)
	}
	allocs, bytes := "NA", "NA"
	if st := bench[impl]; st != nil {
		allocs = fmt.Sprintf("%.0f", medianOf(st.allocs))
		bytes = fmt.Sprintf("%.0f", medianOf(st.bytes))
	}
	return fmt.Sprintf("%s/limit=%s %s/gosdk=%s %s/mcpgo=%s allocs=%s bytes=%s",
		impl, ratio("limit"), impl, ratio("gosdk"), impl, ratio("mcpgo"), allocs, bytes)
}
