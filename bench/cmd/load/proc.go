package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat.
// It is 100 on every Linux architecture Go supports.
const clockTicks = 100

// serverProc is a server child process, pinned to one core when possible.
type serverProc struct {
	cmd      *exec.Cmd
	stats    chan string   // STATS lines from the server's stderr
	grace    time.Duration // how long stop waits before killing; 3s if zero
	stopOnce sync.Once
	done     chan struct{} // closed when the process has exited
	err      error         // the exit status, once done is closed
}

// serverCommand builds the command that runs the server binary with args,
// pinned with taskset to core if taskset exists and core >= 0, with
// GOMAXPROCS=1 so the Go runtime matches the single core.
func serverCommand(cfg *config, args ...string) *exec.Cmd {
	return serverCommandWith(cfg, nil, nil, args...)
}

// serverCommandWith is serverCommand with the server run under wrapper (a
// command and its arguments, or nil) and with env added to its environment.
func serverCommandWith(cfg *config, wrapper, env []string, args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), wrapper...), cfg.serverBin), args...)
	if cfg.serverCore >= 0 {
		if ts, err := exec.LookPath("taskset"); err == nil {
			argv = append([]string{ts, "-c", strconv.Itoa(cfg.serverCore)}, argv...)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...) //nolint:gosec // the operator's own -server and -valgrind binaries
	cmd.Env = append(append(os.Environ(), "GOMAXPROCS=1"), env...)
	return cmd
}

// startServer starts cmd and forwards its stderr, capturing STATS lines.
func startServer(cmd *exec.Cmd) (*serverProc, error) {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serverProc{cmd: cmd, stats: make(chan string, 4), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "STATS ") {
				p.stats <- line
				continue
			}
			fmt.Fprintf(os.Stderr, "[server %d] %s\n", cmd.Process.Pid, line)
		}
	}()
	return p, nil
}

func (p *serverProc) pid() int { return p.cmd.Process.Pid }

// stop interrupts the server and waits for it, killing it after a grace
// period. It returns an error if the server had to be killed or failed.
func (p *serverProc) stop() error {
	return p.finish(func() { _ = p.cmd.Process.Signal(os.Interrupt) }, "")
}

// wait waits for the server to exit by itself, as a stdio server does at
// the end of its input; it stops it after the grace period.
func (p *serverProc) wait() error {
	return p.finish(func() {}, " of the end of its input")
}

// finish runs ask (what makes the server exit) once, then waits for the
// server for the grace period and kills it after; when, in the error,
// says what the grace period ran from.
func (p *serverProc) finish(ask func(), when string) error {
	p.stopOnce.Do(func() {
		ask()
		grace := p.grace
		if grace == 0 {
			grace = 3 * time.Second
		}
		go p.reap()
		select {
		case <-p.done:
		case <-time.After(grace):
			_ = p.cmd.Process.Kill()
			<-p.done
			p.err = fmt.Errorf("server did not exit within %v%s and was killed", grace, when)
		}
	})
	<-p.done
	return p.err
}

// startPiped starts the server with pipes to its standard input and from
// its standard output.
func startPiped(cmd *exec.Cmd) (*serverProc, io.WriteCloser, io.ReadCloser, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	p, err := startServer(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, stdin, stdout, nil
}

// startListening starts an HTTP server and returns the URL it says it
// listens on; the caller stops it.
func startListening(cmd *exec.Cmd) (*serverProc, string, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	p, err := startServer(cmd)
	if err != nil {
		return nil, "", err
	}
	url, err := readListenLine(stdout)
	if err != nil {
		_ = p.stop()
		return nil, "", err
	}
	return p, url, nil
}

// reap waits for the process and records how it ended.
func (p *serverProc) reap() {
	if err := p.cmd.Wait(); err != nil {
		p.err = fmt.Errorf("the server failed: %w", err)
	}
	close(p.done)
}

// runtimeStats asks the server for its STATS line (see cmd/server).
func (p *serverProc) runtimeStats() (map[string]int64, error) {
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return nil, err
	}
	select {
	case line := <-p.stats:
		return parseKV(strings.TrimPrefix(line, "STATS ")), nil
	case <-time.After(10 * time.Second):
		return nil, errors.New("server did not report STATS")
	}
}

// readListenLine reads the "listening URL" line printed by the server.
func readListenLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("waiting for server to listen: %w", err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if !ok {
		return "", fmt.Errorf("unexpected server output %q", line)
	}
	return url, nil
}

// cpuTime returns the user plus system CPU time consumed so far by pid.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the parenthesised command name start at field 3 (state).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// selfCPU returns the CPU time consumed so far by this process.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssKiB returns VmRSS of pid in KiB.
func rssKiB(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
}

// parseKV parses "k=v k=v" into integers, skipping values that are not.
func parseKV(s string) map[string]int64 {
	m := make(map[string]int64)
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			m[k] = n
		}
	}
	return m
}

// busyCPU returns the CPU time that processes on the whole machine have
// used so far, plus time stolen by the hypervisor: the user, nice, system
// and steal columns of the "cpu" line of /proc/stat. Interrupt and softirq
// time, which loopback networking produces, is left out.
func busyCPU() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, errors.New("malformed /proc/stat")
	}
	var ticks int64
	for _, i := range []int{1, 2, 3, 8} { // user, nice, system, steal
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}
