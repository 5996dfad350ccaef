package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCallgrindTotalReadsTheSummaryLine(t *testing.T) {
	tests := []struct {
		name, profile string
		want          int64
		wantErr       bool
	}{
		{"summary", "version: 1\nevents: Ir\nsummary: 35309281\nfn=main\n1 2\ntotals: 35309281\n", 35309281, false},
		{"totals only", "events: Ir\nfn=main\ntotals: 42\n", 42, false},
		{"first wins", "summary: 7\ntotals: 9\n", 7, false},
		{"none", "events: Ir\nfn=main\n", 0, true},
		{"garbage", "summary: many\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "callgrind.out")
			if err := os.WriteFile(path, []byte(tt.profile), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := callgrindTotal(path)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("callgrindTotal = %d, %v; want %d, error %t", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestPerCallCancelsStartUp(t *testing.T) {
	// 1,000,000 instructions of start-up, 500 per call.
	if got := perCall(1_000_000+1000*500, 1_000_000+3000*500, 1000, 3000); got != 500 {
		t.Errorf("perCall = %v, want 500", got)
	}
}

func TestLiveShareSplitsSessionsOverClients(t *testing.T) {
	tests := []struct{ live, c, want int }{
		{0, 4, 4}, {1, 4, 4}, {20000, 16, 20000}, {10, 3, 10}, {2, 16, 16}, // every client has at least one
	}
	for _, tt := range tests {
		total := 0
		for i := range tt.c {
			total += liveShare(tt.live, tt.c, i)
		}
		if total != tt.want {
			t.Errorf("liveShare(%d, %d, *) sums to %d, want %d", tt.live, tt.c, total, tt.want)
		}
	}
}

func TestVariantNamesTheSessionKind(t *testing.T) {
	tests := []struct {
		cfg  config
		want string
	}{
		{config{mode: "http"}, "stateless"},
		{config{mode: "http", stateful: true}, "stateful"},
		{config{mode: "http", protocol: "2026-07-28"}, "modern"},
		{config{mode: "http", protocol: "2025-06-18", live: 20000}, "live20000"},
		{config{mode: "stdio"}, "stdio"},
		{config{mode: "instr", transport: "stdio"}, "stdio"},
	}
	for _, tt := range tests {
		if got := tt.cfg.variant(); got != tt.want {
			t.Errorf("%+v: variant = %q, want %q", tt.cfg, got, tt.want)
		}
	}
}

func TestReportComparesInstructionsWithLimitAndFloor(t *testing.T) {
	results := `RESULT mode=instr variant=stateless impl=ferry instr_per_call=120
RESULT mode=instr variant=stateless impl=limit instr_per_call=100
RESULT mode=instr variant=stateless impl=floor instr_per_call=60
RESULT mode=instr variant=stateful impl=ferry instr_per_call=130
RESULT mode=instr variant=modern impl=ferry instr_per_call=150
RESULT mode=instr variant=modern impl=limit instr_per_call=125
RESULT mode=instr variant=live20000 impl=ferry instr_per_call=140
RESULT mode=http variant=stateless impl=ferry c=16 rps=9000 errors=0 server_cpu_us=30
RESULT mode=http variant=stateless impl=limit c=16 rps=10000 errors=0 server_cpu_us=25
RESULT mode=http variant=stateless impl=floor c=16 rps=20000 errors=0 server_cpu_us=20
RESULT mode=http impl=gosdk c=16 rps=3000 errors=0
`
	bench := `BenchmarkToolsCall/ferry         	   20000	      8083 ns/op	    1768 B/op	      32 allocs/op
BenchmarkToolsCall/ferry_modern  	   20000	      9743 ns/op	    2144 B/op	      41 allocs/op
`
	dir := t.TempDir()
	rp, bp := filepath.Join(dir, "results.txt"), filepath.Join(dir, "bench.txt")
	if err := os.WriteFile(rp, []byte(results), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bp, []byte(bench), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report(&out, rp, bp); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"instr: ferry/limit[stateless]=1.20 ferry/limit[stateful]=1.30 ferry/limit[modern]=1.20 ferry/limit[live20000]=1.40 ferry/floor=2.00 cpu:ferry/floor=1.50",
		"ferry/limit=0.90 ferry/gosdk=3.00 ferry/mcpgo=NA allocs=32 bytes=1768",
		"ferry_modern",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}

func TestCompareShowsBothRevisionsAndTheirRatio(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	write := func(dir, results, bench string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "results.txt"), []byte(results), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(bench), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(dirA, "RESULT mode=instr variant=stateless impl=ferry instr_per_call=1000\n",
		"BenchmarkToolsCall/ferry_modern 100 900 ns/op 2144 B/op 40 allocs/op\nBenchmarkToolsCall/floor 100 50 ns/op 0 B/op 0 allocs/op\n")
	write(dirB, "RESULT mode=instr variant=stateless impl=ferry instr_per_call=900\nRESULT mode=instr variant=modern impl=ferry instr_per_call=5\n",
		"BenchmarkToolsCall/ferry_modern 100 900 ns/op 1072 B/op 30 allocs/op\nBenchmarkToolsCall/floor 100 50 ns/op 0 B/op 0 allocs/op\n")
	var out bytes.Buffer
	if err := compare(&out, "before", dirA, "after", dirB); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"metric before after B/A",
		"instr/call stateless ferry 1000 900 0.90",
		"allocs/op ferry_modern 40 30 0.75",
		"B/op ferry_modern 2144 1072 0.50",
		"instr/call modern ferry NA 5 NA",
		"allocs/op floor 0 0 1.00",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("comparison lacks %q:\n%s", want, out.String())
		}
	}
}
