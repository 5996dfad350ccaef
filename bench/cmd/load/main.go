// Command load drives the benchmark servers built from cmd/server.
//
// It starts the server itself, pinned with taskset to -server-core and with
// GOMAXPROCS=1, so that it knows the server's PID and can read its CPU time
// and memory from /proc. Run load itself pinned to another core.
//
// Modes:
//
//	load -mode http -impl gosdk -c 1,16,64     # tools/call throughput over HTTP
//	load -mode stdio -impl gosdk -inflight 64  # tools/call throughput over a pipe
//	load -mode sessions -impl gosdk -n 10000   # memory held by stateful sessions
//	load -mode instr -impl ferry -transport http # instructions per call under callgrind
//	load -mode report -out results.txt -bench bench.txt  # summary table
//	load -mode compare -a DIR -b DIR           # two result directories side by side
//
// The http and instr modes serve stateless legacy sessions unless told
// otherwise: -stateful keeps sessions in the server, -protocol 2026-07-28
// speaks the stateless era (no handshake), and -live N opens N stateless
// sessions first and spreads the calls over them in turn.
//
// Each measurement prints one "RESULT key=value ..." line, appended to -out.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry/bench/internal/wire"
)

type config struct {
	mode       string
	impl       string
	serverBin  string
	serverCore int
	conc       []int
	inflight   int
	sessions   int
	warmup     time.Duration
	duration   time.Duration
	protocol   string
	stateful   bool
	live       int
	transport  string
	n1, n2     int
	valgrind   string
	keep       string
	out        string
	benchOut   string

	dirA, dirB     string // compare: result directories
	labelA, labelB string // compare: their column titles
}

// variant names what kind of session a measurement used.
func (cfg *config) variant() string {
	switch {
	case cfg.mode == "stdio" || cfg.transport == "stdio":
		return "stdio"
	case cfg.stateful:
		return "stateful"
	case wire.IsModern(cfg.protocol):
		return "modern"
	case cfg.live > 1:
		return "live" + strconv.Itoa(cfg.live)
	}
	return "stateless"
}

func main() {
	if err := runMode(); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// runMode parses the flags and runs the mode they name.
func runMode() error {
	cfg, err := parseFlags()
	if err != nil {
		return err
	}
	switch cfg.mode {
	case "http", "sessions":
		err = runServerHTTP(cfg)
	case "stdio":
		err = runStdio(cfg)
	case "instr":
		err = runInstr(cfg)
	case "report":
		err = report(os.Stdout, cfg.out, cfg.benchOut)
	case "compare":
		err = compare(os.Stdout, cfg.labelA, cfg.dirA, cfg.labelB, cfg.dirB)
	default:
		err = fmt.Errorf("unknown -mode %q", cfg.mode)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", cfg.mode, cfg.impl, err)
	}
	return nil
}

func parseFlags() (*config, error) {
	cfg := &config{}
	var conc string
	flag.StringVar(&cfg.mode, "mode", "http", "http, stdio, sessions, instr, report or compare")
	flag.StringVar(&cfg.impl, "impl", "", "implementation to start: ferry, ferrytyped, gosdk, mcpgo, limit or floor")
	flag.StringVar(&cfg.serverBin, "server", "", "server binary (default: \"server\" next to this binary)")
	flag.IntVar(&cfg.serverCore, "server-core", 1, "pin the server to this CPU with taskset; -1 disables pinning")
	flag.StringVar(&conc, "c", "1,16,64", "http: comma-separated concurrency levels")
	flag.IntVar(&cfg.inflight, "inflight", 64, "stdio: requests kept in flight")
	flag.IntVar(&cfg.sessions, "n", 10000, "sessions: sessions to open")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "warm-up before each measurement")
	flag.DurationVar(&cfg.duration, "d", 3*time.Second, "measurement duration")
	flag.StringVar(&cfg.protocol, "protocol", "2025-06-18", "MCP protocol version to request")
	flag.BoolVar(&cfg.stateful, "stateful", false, "http, instr: the server keeps legacy sessions in memory")
	flag.IntVar(&cfg.live, "live", 0, "http, instr: open this many stateless sessions and use them in turn")
	flag.StringVar(&cfg.transport, "transport", "http", "instr: http or stdio")
	flag.IntVar(&cfg.n1, "n1", 1000, "instr: calls in the shorter run")
	flag.IntVar(&cfg.n2, "n2", 3000, "instr: calls in the longer run")
	flag.StringVar(&cfg.valgrind, "valgrind", "valgrind", "instr: the valgrind binary")
	flag.StringVar(&cfg.keep, "keep", "", "instr: keep the callgrind profiles in this directory (for callgrind_annotate)")
	flag.StringVar(&cfg.dirA, "a", "", "compare: directory of the first results (results.txt, bench.txt)")
	flag.StringVar(&cfg.dirB, "b", "", "compare: directory of the second results")
	flag.StringVar(&cfg.labelA, "label-a", "A", "compare: title of the first column")
	flag.StringVar(&cfg.labelB, "label-b", "B", "compare: title of the second column")
	flag.StringVar(&cfg.out, "out", "", "append RESULT lines to this file (report: read them from it)")
	flag.StringVar(&cfg.benchOut, "bench", "", "report: go test -bench output to summarize")
	flag.Parse()
	for f := range strings.SplitSeq(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad -c value %q", f)
		}
		cfg.conc = append(cfg.conc, n)
	}
	if cfg.serverBin == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.serverBin = filepath.Join(filepath.Dir(exe), "server")
	}
	if cfg.n1 < 0 || cfg.n2 <= cfg.n1 {
		return nil, fmt.Errorf("need 0 <= -n1 < -n2, have %d and %d", cfg.n1, cfg.n2)
	}
	if cfg.mode != "report" && cfg.mode != "compare" && cfg.impl == "" {
		return nil, fmt.Errorf("-impl is required for -mode %s", cfg.mode)
	}
	return cfg, nil
}

// runServerHTTP starts an HTTP server and runs the http or sessions mode.
// It stops the server at the end and fails if the server did not exit
// cleanly, after the results are out.
func runServerHTTP(cfg *config) (err error) {
	args := []string{"-impl", cfg.impl, "-http", "127.0.0.1:0"}
	if cfg.mode == "sessions" || cfg.stateful {
		args = append(args, "-sessions")
	}
	cmd := serverCommand(cfg, args...)
	p, url, err := startListening(cmd)
	if err != nil {
		return err
	}
	defer func() { err = cmpOr(err, p.stop()) }()
	if cfg.mode == "sessions" {
		return runSessions(cfg, p, url, cfg.sessions)
	}
	for _, c := range cfg.conc {
		res, err := runHTTP(cfg, url, p.pid(), c)
		if err != nil {
			return err
		}
		if err := res.emit(cfg, "http"); err != nil {
			return err
		}
	}
	return nil
}
