package main

import (
	"fmt"
	"os"
	"slices"
	"time"
)

// result is one measurement of one implementation at one concurrency.
type result struct {
	c         int
	wall      time.Duration
	calls     int
	errors    int
	firstErr  error
	p50, p99  time.Duration
	serverCPU time.Duration // negative if unknown
	loadCPU   time.Duration
	otherCPU  time.Duration // other processes on the machine; negative if unknown
}

func (r *result) collect(recs []recorder) {
	var lat []time.Duration
	for i := range recs {
		lat = append(lat, recs[i].lat...)
		r.errors += recs[i].errors
		if r.firstErr == nil {
			r.firstErr = recs[i].first
		}
	}
	r.calls = len(lat)
	slices.Sort(lat)
	r.p50 = percentile(lat, 0.50)
	r.p99 = percentile(lat, 0.99)
}

func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

// emit prints a result line with the measured fields, as [emit] does.
func (r *result) emit(cfg *config, mode string) error {
	rps := float64(r.calls) / r.wall.Seconds()
	cpuPerCall, cpuPct := -1.0, -1.0 // unknown
	if r.serverCPU >= 0 && r.calls > 0 {
		cpuPerCall = float64(r.serverCPU.Microseconds()) / float64(r.calls)
		cpuPct = 100 * r.serverCPU.Seconds() / r.wall.Seconds()
	}
	err := emit(cfg, "RESULT mode=%s variant=%s impl=%s c=%d rps=%.0f p50_us=%.1f p99_us=%.1f errors=%d calls=%d server_cpu_us=%.2f server_cpu_pct=%.0f load_cpu_pct=%.0f other_cpu_pct=%.0f",
		mode, cfg.variant(), cfg.impl, r.c, rps, us(r.p50), us(r.p99), r.errors, r.calls, cpuPerCall,
		cpuPct, 100*r.loadCPU.Seconds()/r.wall.Seconds(), pct(r.otherCPU, r.wall))
	if r.firstErr != nil {
		fmt.Fprintf(os.Stderr, "load: %s %s c=%d: %d errors, first: %v\n", mode, cfg.impl, r.c, r.errors, r.firstErr)
	}
	return err
}

// pct returns d as a percentage of one core over wall, or -1 if unknown.
func pct(d, wall time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return 100 * d.Seconds() / wall.Seconds()
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// emit prints a line to stdout and appends it to the -out file, if any.
// The file is created readable by its owner only. It fails if the line
// could not be printed or appended, so that no result goes missing
// unnoticed.
func emit(cfg *config, format string, args ...any) error {
	line := fmt.Sprintf(format, args...)
	if _, err := fmt.Fprintln(os.Stdout, line); err != nil {
		return fmt.Errorf("printing a result: %w", err)
	}
	if cfg.out == "" {
		return nil
	}
	f, err := os.OpenFile(cfg.out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("opening the results file: %w", err)
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("appending to the results file: %w", err)
	}
	return nil
}
