package client_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used (user and system), so
// benchmarks can report CPU per call apart from the wall time a shared
// machine inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
