package interop

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/ferrytest"
)

// Set once by TestMain, read-only afterwards.
var (
	// everythingPath is the built fixture server, conformance/everything.
	everythingPath string
	// everythingErr is why it could not be built, if it could not.
	everythingErr error
)

const (
	// startTimeout bounds how long a server may take to start answering.
	startTimeout = 15 * time.Second
	// stopTimeout bounds how long a server may take to exit once told to.
	stopTimeout = 5 * time.Second
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ferry-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		os.Exit(1)
	}
	everythingPath, everythingErr = buildEverything(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildEverything builds ./conformance/everything (module conformance,
// through the root's go.work) into dir.
// A failed build is not fatal here: every test that needs the binary fails
// with its output, so a broken fixture can never look like a passing run.
func buildEverything(dir string) (string, error) {
	bin := filepath.Join(dir, "everything")
	cmd := exec.Command("go", "build", "-o", bin, "./conformance/everything")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./conformance/everything: %w\n%s", err, out)
	}
	return bin, nil
}

// everything returns the path of the fixture server binary, failing t if it
// could not be built.
func everything(t *testing.T) string {
	t.Helper()
	if everythingErr != nil {
		t.Fatal(everythingErr)
	}
	return everythingPath
}

// startHTTP starts the fixture server on a free loopback port with the given
// extra arguments, waits until it accepts connections, and returns the URL of
// its MCP endpoint. The server is interrupted when t ends.
func startHTTP(t *testing.T, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	stderr := new(ferrytest.Buffer)
	cmd := exec.CommandContext(t.Context(), everything(t), append([]string{"-http", addr}, args...)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = stopTimeout
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %v: %v", cmd.Args, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		<-exited // t.Context is done by now, so the server has been interrupted.
		if t.Failed() {
			t.Logf("server %v exited (%v); stderr:\n%s", cmd.Args, waitErr, stderr)
		}
	})
	if err := waitListening(t.Context(), addr, exited); err != nil {
		t.Fatalf("server %v: %v; stderr:\n%s", cmd.Args, err, stderr)
	}
	return "http://" + addr + "/mcp"
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// waitListening polls addr until it accepts a TCP connection, the process
// exits, or startTimeout passes.
func waitListening(ctx context.Context, addr string, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn.Close()
		}
		select {
		case <-exited:
			return fmt.Errorf("exited before listening on %s", addr)
		case <-ctx.Done():
			return fmt.Errorf("not listening on %s after %v: %w", addr, startTimeout, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stdioCommand returns an unstarted command that serves the fixture over
// stdio. It is killed if still running when ctx is done, and its stderr is
// written to the test log if t fails.
func stdioCommand(ctx context.Context, t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	stderr := new(ferrytest.Buffer)
	cmd := exec.CommandContext(ctx, everything(t), args...)
	cmd.WaitDelay = stopTimeout
	cmd.Stderr = stderr
	t.Cleanup(func() {
		if t.Failed() && stderr.String() != "" {
			t.Logf("server %v stderr:\n%s", cmd.Args, stderr)
		}
	})
	return cmd
}

// versionArgs returns the flags that restrict the server to versions, or none
// if versions is empty.
func versionArgs(versions string) []string {
	if versions == "" {
		return nil
	}
	return []string{"-versions", versions}
}

// exitSummary describes how a finished process ended.
func exitSummary(ps *os.ProcessState) string {
	if ps == nil {
		return "not finished"
	}
	return ps.String() + " (exit code " + strconv.Itoa(ps.ExitCode()) + ")"
}
