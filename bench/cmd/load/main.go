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
//	load -mode report -out results.txt -bench bench.txt  # summary table
//
// Each measurement prints one "RESULT key=value ..." line, appended to -out.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
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
	out        string
	benchOut   string
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("load: ")
	cfg, err := parseFlags()
	if err != nil {
		log.Fatal(err)
	}
	switch cfg.mode {
	case "http", "sessions":
		err = runServerHTTP(cfg)
	case "stdio":
		err = runStdio(cfg)
	case "report":
		err = report(os.Stdout, cfg.out, cfg.benchOut)
	default:
		err = fmt.Errorf("unknown -mode %q", cfg.mode)
	}
	if err != nil {
		log.Fatalf("%s %s: %v", cfg.mode, cfg.impl, err)
	}
}

func parseFlags() (*config, error) {
	cfg := &config{}
	var conc string
	flag.StringVar(&cfg.mode, "mode", "http", "http, stdio, sessions or report")
	flag.StringVar(&cfg.impl, "impl", "", "implementation to start: ferry, gosdk, mcpgo or limit")
	flag.StringVar(&cfg.serverBin, "server", "", "server binary (default: \"server\" next to this binary)")
	flag.IntVar(&cfg.serverCore, "server-core", 1, "pin the server to this CPU with taskset; -1 disables pinning")
	flag.StringVar(&conc, "c", "1,16,64", "http: comma-separated concurrency levels")
	flag.IntVar(&cfg.inflight, "inflight", 64, "stdio: requests kept in flight")
	flag.IntVar(&cfg.sessions, "n", 10000, "sessions: sessions to open")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "warm-up before each measurement")
	flag.DurationVar(&cfg.duration, "d", 3*time.Second, "measurement duration")
	flag.StringVar(&cfg.protocol, "protocol", "2025-06-18", "MCP protocol version to request")
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
	if cfg.mode != "report" && cfg.impl == "" {
		return nil, fmt.Errorf("-impl is required for -mode %s", cfg.mode)
	}
	return cfg, nil
}

// runServerHTTP starts an HTTP server and runs the http or sessions mode.
func runServerHTTP(cfg *config) error {
	args := []string{"-impl", cfg.impl, "-http", "127.0.0.1:0"}
	if cfg.mode == "sessions" {
		args = append(args, "-sessions")
	}
	cmd := serverCommand(cfg, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	p, err := startServer(cmd)
	if err != nil {
		return err
	}
	defer p.stop()
	url, err := readListenLine(stdout)
	if err != nil {
		return err
	}
	if cfg.mode == "sessions" {
		return runSessions(cfg, p, url, cfg.sessions)
	}
	for _, c := range cfg.conc {
		res, err := runHTTP(cfg, url, p.pid(), c)
		if err != nil {
			return err
		}
		res.emit(cfg, "http")
	}
	return nil
}
